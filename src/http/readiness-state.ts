/**
 * Readiness, kept current in the background on the wall clock so `/readyz` answers at once: a load balancer
 * waits about 2 s, and a check on a store that does not answer would hold the answer for the store's own
 * timeout. Every `intervalMs` the checks run together, each given `checkDeadlineMs`; one that has not
 * answered by then fails with "no answer within ... ms".
 */
import type { Clock } from '../clock.js';
import { createWakeLoop } from '../wake-loop.js';
import { withinDeadline } from './deadline.js';

/** One readiness check: a name for `/readyz` and how to run it. */
export interface ReadinessCheck {
  name: string;
  check: () => Promise<{ ok: boolean; detail?: unknown }> | { ok: boolean; detail?: unknown };
}

export type CheckResult = { ok: boolean; detail?: unknown };

export interface Readiness {
  ok: boolean;
  checks: Record<string, CheckResult>;
}

export interface ReadinessState {
  /** The last readiness found (the first run's, awaited, before there is one). */
  current(): Promise<Readiness>;
  stop(): Promise<void>;
}

export function trackReadiness(opts: {
  checks: () => ReadinessCheck[];
  wall: Clock;
  /** @default 1000 */
  intervalMs?: number;
  /** @default 400 */
  checkDeadlineMs?: number;
}): ReadinessState {
  const intervalMs = opts.intervalMs ?? 1000;
  const deadlineMs = opts.checkDeadlineMs ?? 400;

  const runCheck = async ({ check }: ReadinessCheck): Promise<CheckResult> => {
    try {
      const r = await withinDeadline(Promise.resolve().then(check), deadlineMs, opts.wall);
      return r.late ? { ok: false, detail: `no answer within ${deadlineMs} ms` } : r.value;
    } catch (err) {
      return { ok: false, detail: err instanceof Error ? err.message : String(err) };
    }
  };
  const run = async (): Promise<Readiness> => {
    const checks = opts.checks();
    const results = await Promise.all(checks.map(runCheck));
    return {
      ok: results.every((r) => r.ok),
      checks: Object.fromEntries(checks.map((c, i) => [c.name, results[i] as CheckResult])),
    };
  };

  // The first run is awaited by early requests; later ones answer the last finished run at once.
  let latest = run();
  let started = false;
  const loop = createWakeLoop(opts.wall, async () => {
    if (started) {
      const next = await run();
      latest = Promise.resolve(next);
    } else {
      started = true;
      await latest;
    }
    return intervalMs;
  });
  loop.start();
  return {
    current: () => latest,
    stop: () => loop.stop(),
  };
}
