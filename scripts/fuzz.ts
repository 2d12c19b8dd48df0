/**
 * The long run of the fault fuzz (test/fuzz/fault-fuzz.ts): seeded faulty race days until the time is up.
 *   npm run fuzz -- --minutes N [--seed S]
 * Prints each failure, a summary with the confirmation latency, how many payloads served each real
 * structure of issue 22 (0 included), and last a line `N passed, N failed`.
 * Exit code 1 when any case failed.
 */
import { parseArgs } from 'node:util';
import { runCase } from '../test/fuzz/fault-fuzz.js';
import { noStructures, type Structure } from '../test/fuzz/structures.js';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '1' }, seed: { type: 'string', default: '1' } },
});
const minutes = Number(values.minutes);
const first = Number(values.seed);
if (!(minutes > 0) || !Number.isInteger(first)) {
  console.error('usage: npm run fuzz -- --minutes N [--seed S]');
  process.exit(2);
}

const until = Date.now() + minutes * 60_000;
let passed = 0;
let failed = 0;
let payloads = 0;
let events = 0;
let faults = 0;
const served = noStructures();
const firstSight: number[] = [];
const confirmed: number[] = [];
for (let seed = first; Date.now() < until; seed++) {
  const result = runCase(seed);
  payloads += result.payloads;
  events += result.events;
  faults += result.faults;
  for (const [name, n] of Object.entries(result.served)) served[name as Structure] += n;
  firstSight.push(...result.latency.firstSight);
  confirmed.push(...result.latency.confirmed);
  if (result.failures.length === 0) passed++;
  else {
    failed++;
    for (const line of result.failures) console.log(line);
  }
}

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
console.log(
  `cases from seed ${first}: ${passed + failed}; payloads ${payloads}; faults ${faults}; events ${events}`,
);
console.log(
  `latency, believed at once (race clock, from the truth's change): median ${s(quantile(firstSight, 0.5))}, p95 ${s(quantile(firstSight, 0.95))} (${firstSight.length})`,
);
console.log(
  `latency, confirmed first (withdrawn prices, amended placings): median ${s(quantile(confirmed, 0.5))}, p95 ${s(quantile(confirmed, 0.95))} (${confirmed.length})`,
);
console.log(
  `payloads served with each real structure: ${Object.entries(served)
    .map(([name, n]) => `${name} ${n}`)
    .join('; ')}`,
);
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
