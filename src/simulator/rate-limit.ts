/** The simulator's own rate limit: a sliding 60 s window on the simulated clock. */
import type { Clock } from '../clock.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window frees a slot (0 when a slot is free now). */
  resetSeconds: number;
}

const WINDOW = 60_000;

export function createSlidingWindow(perMinute: number, clock: Clock) {
  const hits: number[] = [];
  const prune = (now: number) => {
    while (hits.length > 0 && (hits[0] as number) <= now - WINDOW) hits.shift();
  };
  const decision = (now: number, allowed: boolean): RateDecision => ({
    allowed,
    limit: perMinute,
    remaining: Math.max(0, perMinute - hits.length),
    resetSeconds: hits.length === 0 ? 0 : Math.max(1, Math.ceil(((hits[0] as number) + WINDOW - now) / 1000)),
  });
  return {
    /** Counts a request if a slot is free. */
    hit(): RateDecision {
      const now = clock.now();
      prune(now);
      if (hits.length >= perMinute) return decision(now, false);
      hits.push(now);
      return decision(now, true);
    },
  };
}
