/**
 * The nemesis's faults, drawn from a seeded generator so that a failing run can be replayed with its seed.
 * Every fault a check judges is drawn at least once in any run of one minute or more, whatever the seed
 * (a one-minute run once drew no pause, so the fence check could only say "not exercised"). Pure: the
 * runner (run.ts) does what each step names.
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

/** The faults the checks judge (run.ts): each is drawn once, in a seeded order, before any weighted draw. */
export const JUDGED_FAULTS: readonly Fault[] = [
  'kill-leader',
  'pause-leader',
  'redis-restart',
  'redis-wipe',
  'drop-bus',
];

const FIRST_AT_MS = 8_000;
const MIN_GAP_MS = 8_000;
const MAX_GAP_MS = 20_000;
/** The last step leaves this long before the end for things to settle. */
const SETTLE_MS = 10_000;

/**
 * Steps 8-20 s apart over `durationMs`, the first 8 s in; the gaps are narrowed when needed so that every
 * judged fault fits (one minute: 8-10.5 s). The judged faults come first, in a seeded order; the rest are
 * drawn by weight.
 */
export function faultSchedule(seed: number, durationMs: number): Step[] {
  const random = seeded(seed);
  const total = WEIGHTS.reduce((sum, [, w]) => sum + w, 0);
  const room = durationMs - SETTLE_MS - FIRST_AT_MS - 1;
  const maxGap = Math.max(MIN_GAP_MS, Math.min(MAX_GAP_MS, room / (JUDGED_FAULTS.length - 1)));
  const judged = [...JUDGED_FAULTS];
  // Fisher-Yates on the seeded generator.
  for (let i = judged.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [judged[i], judged[j]] = [judged[j]!, judged[i]!];
  }
  // The wipe third: the id check needs deliveries on both sides of it (a first-step wipe came before any
  // scratching, a last-step one left no time after it).
  const wipe = judged.indexOf('redis-wipe');
  [judged[wipe], judged[2]] = [judged[2]!, judged[wipe]!];
  const steps: Step[] = [];
  for (
    let at = FIRST_AT_MS;
    at < durationMs - SETTLE_MS;
    at += MIN_GAP_MS + random() * (maxGap - MIN_GAP_MS)
  ) {
    let fault = judged.shift();
    if (fault === undefined) {
      const pick = random() * total;
      let below = 0;
      fault =
        WEIGHTS.find(([, w]) => {
          below += w;
          return pick < below;
        })?.[0] ?? 'calm';
    }
    steps.push({ at: Math.round(at), fault, holdMs: Math.round(500 + random() * 2_500) });
  }
  return steps;
}
