/**
 * `npm run nemesis -- --minutes N [--seed S] [--unsafe-trust-ms MS]`: the cluster under faults
 * (test/cluster/nemesis/run.ts). `--unsafe-trust-ms` (default 8000, 0 for the production lease): every node
 * trusts its lease this long past its time-to-live (a lease trust the nemesis's node entry injects,
 * test/cluster/unsafe-trust.ts), so that resumed leaders write with stale tokens and the fence is tested. Prints
 * each fault as it happens, each check, and a last line `N passed, N failed`; exits 1 when a check failed.
 * Needs redis-server on PATH (it runs its own, on a free port).
 */
import { parseArgs } from 'node:util';
import { runNemesis } from '../test/cluster/nemesis/run.js';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '5' },
    seed: { type: 'string' },
    'unsafe-trust-ms': { type: 'string', default: '8000' },
  },
});
const minutes = Number(values.minutes);
const seed = values.seed === undefined ? Date.now() % 1_000_000 : Number(values.seed);
const unsafeTrustMs = Number(values['unsafe-trust-ms']);
if (!(minutes > 0) || !Number.isInteger(seed) || !Number.isInteger(unsafeTrustMs) || unsafeTrustMs < 0) {
  console.error('usage: npm run nemesis -- --minutes N [--seed S] [--unsafe-trust-ms MS]');
  process.exit(2);
}
console.log(`nemesis: ${minutes} min, seed ${seed}, unsafe lease trust ${unsafeTrustMs} ms`);
const result = await runNemesis({ minutes, seed, unsafeTrustMs, log: (line) => console.log(line) });
for (const c of result.checks) console.log(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}`);
console.log(`${result.passed} passed, ${result.failed} failed`);
process.exit(result.failed > 0 ? 1 : 0);
