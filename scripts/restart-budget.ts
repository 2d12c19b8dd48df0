/**
 * `npx tsx scripts/restart-budget.ts [--runs N] [--rpm N] [--forget]`: the budget across a SIGKILL (issue 28),
 * end to end. Each run starts a scripted upstream in this process (the simulator on the system clock, its own
 * limit at twice the budget, logging the arrival time of every request), starts racewire as a child process
 * against it with the default single-node set-up (STORE=sqlite on a fresh DATA_DIR) and RACING_API_MAX_RPM,
 * SIGKILLs it mid-timeline (a different instant each run), starts it again on the same DATA_DIR, lets it run
 * 65 s more and counts the most requests the upstream's own log shows in any 60 s. `--forget` deletes the
 * kept window before the restart (the ramp-up path). Prints one line per run and a last line
 * `N passed, N failed`; exits 1 when a run saw more than the budget.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { systemClock } from '../src/clock.js';
import { WINDOW_CHECKPOINT_FILE } from '../src/upstream/window-checkpoint.js';
import { freePort, maxInAnyMinute, startClusterSimulator } from '../test/cluster/cluster-harness.js';
import { until } from '../test/e2e/harness.js';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    rpm: { type: 'string', default: '40' },
    forget: { type: 'boolean', default: false },
  },
});
const runs = Number(values.runs);
const rpm = Number(values.rpm);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(rpm) || rpm < 1) {
  console.error('usage: npx tsx scripts/restart-budget.ts [--runs N] [--rpm N] [--forget]');
  process.exit(2);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WARM_MAIN = fileURLToPath(new URL('./warm-main.ts', import.meta.url));

/** A racewire process with its modules loaded (scripts/warm-main.ts), started by `go()`. */
async function warmProcess(env: Record<string, string>) {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', WARM_MAIN], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  await until(() => out.includes('warm') || undefined, 'racewire modules loaded', 120_000);
  const url = `http://127.0.0.1:${port}`;
  return {
    child,
    exited,
    /** Runs src/main.ts; resolves once /healthz answers. */
    async go() {
      child.stdin.write('go\n');
      await until(
        async () => (await fetch(`${url}/healthz`).catch(() => undefined))?.ok || undefined,
        'racewire to answer',
        60_000,
      );
    },
  };
}

async function run(i: number) {
  // Its nodes are started here, not by spawnNode, on the system clock: so is the simulator.
  const upstream = await startClusterSimulator(rpm, systemClock);
  const dataDir = await mkdtemp(join(tmpdir(), 'racewire-restart-budget-'));
  const env = {
    STORE: 'sqlite',
    DATA_DIR: dataDir,
    RACING_API_URL: upstream.url,
    RACING_API_MAX_RPM: String(rpm),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
  const processes: Awaited<ReturnType<typeof warmProcess>>[] = [];
  try {
    const first = await warmProcess(env);
    processes.push(first);
    await first.go();
    // The restart is loaded while the first process runs, so it starts as fast as main itself does.
    const second = await warmProcess(env);
    processes.push(second);
    await until(() => upstream.requests.length > 0 || undefined, 'the first request', 30_000);
    const t0 = upstream.requests[0]!;
    // Kill instants spread over the first minute and a half, so some land before the window fills.
    const killAt = 12_000 + ((i * 7_919) % 80_000);
    await sleep(t0 + killAt - Date.now());
    const killedAt = Date.now() - t0;
    first.child.kill('SIGKILL');
    await first.exited;
    const sentBefore = upstream.requests.length;
    if (values.forget) await rm(join(dataDir, WINDOW_CHECKPOINT_FILE), { force: true });
    await second.go();
    const restartedAt = Date.now() - t0;
    await sleep(65_000);
    second.child.kill('SIGTERM');
    await second.exited;
    const times = [...upstream.requests];
    const worst = maxInAnyMinute(times);
    const afterRestart = times.slice(sentBefore).map((t) => t - t0);
    return {
      worst,
      line:
        `run ${i + 1}: killed at ${(killedAt / 1000).toFixed(1)} s after ${sentBefore} requests, ` +
        `answering again at ${(restartedAt / 1000).toFixed(1)} s, its first request at ` +
        `${((afterRestart[0] ?? Number.NaN) / 1000).toFixed(1)} s; ${times.length} requests in all, ` +
        `most in any 60 s: ${worst} (budget ${rpm})`,
    };
  } finally {
    for (const p of processes)
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await Promise.all(processes.map((p) => p.exited));
    await upstream.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

console.log(
  `restart budget: ${runs} runs at RACING_API_MAX_RPM=${rpm}${values.forget ? ', window file deleted before each restart' : ''}`,
);
let passed = 0;
let failed = 0;
for (let i = 0; i < runs; i++) {
  const { worst, line } = await run(i);
  console.log(`${worst <= rpm ? 'ok  ' : 'FAIL'} ${line}`);
  if (worst <= rpm) passed++;
  else failed++;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
