/**
 * Answers within a deadline on the wall clock, whatever the store does: what operators and load balancers
 * read (`/metrics`, `/v1/ops`, `/readyz`) must answer while Redis is away, when each command waits for its
 * own timeout (2 s) first.
 */
import type { Clock } from '../clock.js';
import { WOKEN } from '../wake-reason.js';

/** The value `work` settles to within `ms` of wall time, or `late` (its rejection is the caller's). */
export async function withinDeadline<T>(
  work: Promise<T>,
  ms: number,
  wall: Clock,
): Promise<{ late: false; value: T } | { late: true }> {
  const timer = new AbortController();
  const timeout = wall.sleep(ms, timer.signal).then(
    () => ({ late: true }) as const,
    () => ({ late: true }) as const, // aborted: work settled first, and this result is never read
  );
  try {
    return await Promise.race([work.then((value) => ({ late: false, value }) as const), timeout]);
  } finally {
    timer.abort(WOKEN);
  }
}

/** How long `/metrics` and `/v1/ops` wait for a figure from the store: the route answers within 500 ms. */
export const FIGURE_DEADLINE_MS = 300;

export interface LastKnown<T> {
  /** The figure now if `read` answers within the deadline, else the last one it answered, marked stale. */
  get(): Promise<{ value: T; stale: boolean }>;
}

/**
 * A figure read from a store, answered within `deadlineMs`: late or failed, the last value read (or
 * `initial`) comes back with `stale: true`. At most one read is in flight, so a store that does not answer
 * is not sent another command on every scrape.
 */
export function lastKnown<T>(
  read: () => Promise<T>,
  opts: { initial: T; deadlineMs: number; wall: Clock },
): LastKnown<T> {
  let last = opts.initial;
  let inFlight: Promise<T> | undefined;
  return {
    async get() {
      let reading = inFlight;
      if (!reading) {
        reading = read().then((value) => {
          last = value;
          return value;
        });
        inFlight = reading;
        // Frees the slot however the read ends; its error is answered as stale below.
        const free = () => {
          inFlight = undefined;
        };
        reading.then(free, free);
      }
      try {
        const r = await withinDeadline(reading, opts.deadlineMs, opts.wall);
        return r.late ? { value: last, stale: true } : { value: r.value, stale: false };
      } catch {
        return { value: last, stale: true };
      }
    },
  };
}
