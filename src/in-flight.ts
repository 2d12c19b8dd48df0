/**
 * Outside I/O in flight (HTTP requests, Redis commands), counted so that a driver on a manual clock can wait
 * until it is all answered before it moves time on: `idle()` is a promise resolved when the count reaches
 * zero, so the wait blocks on the I/O instead of turning the event loop until it ends (a busy wait through
 * every Redis round trip: about 3 % of the Redis soak's CPU samples; docs/benchmarks.md).
 */
export interface InFlight {
  /** Counts one operation in; the function returned counts it out (once, however often it is called). */
  start(): () => void;
  busy(): boolean;
  /** Resolves once nothing is in flight (at once when nothing is). */
  idle(): Promise<void>;
}

export function createInFlight(): InFlight {
  let count = 0;
  let waiters: Array<() => void> = [];
  return {
    start() {
      count++;
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        if (--count > 0) return;
        const wake = waiters;
        waiters = [];
        for (const resolve of wake) resolve();
      };
    },
    busy: () => count > 0,
    idle: () => (count === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}
