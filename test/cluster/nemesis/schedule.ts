/**
 * The nemesis's faults, drawn from a seeded generator so that a failing run can be replayed with its seed.
 * Pure: the runner (run.ts) does what each step names.
 */

export type Fault =
  | 'kill-leader' // SIGKILL the lease holder; a new node replaces it
  | 'pause-leader' // SIGSTOP it past its lease, then SIGCONT
  | 'redis-restart' // SIGKILL Redis and start it again on its append-only file
  | 'redis-wipe' // SIGKILL Redis and start it empty (no persistence)
  | 'drop-bus' // disconnect every pub/sub client: what is published meanwhile is lost
  | 'calm'; // nothing

export interface Step {
  /** Wall-clock ms from the start of the schedule. */
  at: number;
  fault: Fault;
  /** How long Redis stays down, or how long past its lease the leader stays paused (ms). */
  holdMs: number;
}

const WEIGHTS: ReadonlyArray<readonly [Fault, number]> = [
  ['kill-leader', 2],
  ['pause-leader', 2],
  ['redis-restart', 1.5],
  ['redis-wipe', 1],
  ['drop-bus', 2.5],
  ['calm', 1],
];

/** mulberry32: a small, well-mixed 32-bit generator, enough for a test schedule. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Steps every 8-20 s over `durationMs`; the last one leaves 10 s before the end for things to settle. */
export function faultSchedule(seed: number, durationMs: number): Step[] {
  const random = seeded(seed);
  const total = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
  const steps: Step[] = [];
  for (let at = 8_000 + random() * 12_000; at < durationMs - 10_000; at += 8_000 + random() * 12_000) {
    const pick = random() * total;
    let below = 0;
    const fault =
      WEIGHTS.find(([, w]) => {
        below += w;
        return pick < below;
      })?.[0] ?? 'calm';
    steps.push({ at: Math.round(at), fault, holdMs: Math.round(500 + random() * 2_500) });
  }
  return steps;
}
