/**
 * The cluster suites' time: the system clock moved to the same time of day, 15:30 UTC, whenever a suite runs.
 * The simulator lays the real timetable on the day, so the hour sets how many races are near their jump (5
 * at 22:00 UTC, 18 at 17:30: the judgement of issue 27 needs one fetch each within 30 requests of a takeover)
 * and which runners it scratches of its own accord: on the unmoved clock the suites passed at one hour and
 * failed at another. The simulator runs on `clusterClock` in the test process; every node `spawnNode` starts is
 * given the same offset, which `shifted-date.mjs` applies to its Date before it starts.
 */
import { type Clock, systemClock } from '../../src/clock.js';

/** 15:30 UTC: both simulated days race (14:15 UTC to 17:02 UTC), as in every run before the clock moved. */
export const CLUSTER_TIME_OF_DAY_MS = 15.5 * 3_600_000;
const DAY = 86_400_000;

/** Computed once per process: every suite of a test fork, and every node it starts, shares it. */
const started = Date.now();
export const clusterOffsetMs = Math.floor(started / DAY) * DAY + CLUSTER_TIME_OF_DAY_MS - started;

export const clusterNow = (): number => Date.now() + clusterOffsetMs;

export const clusterClock: Clock = { now: clusterNow, sleep: (ms, signal) => systemClock.sleep(ms, signal) };

/** The environment that moves a node process's Date by the same offset. */
export function shiftedDateEnv(): Record<string, string> {
  const preload = `--import=${new URL('./shifted-date.mjs', import.meta.url).href}`;
  return {
    RACEWIRE_TEST_CLOCK_OFFSET_MS: String(clusterOffsetMs),
    NODE_OPTIONS: [process.env.NODE_OPTIONS, preload].filter(Boolean).join(' '),
  };
}
