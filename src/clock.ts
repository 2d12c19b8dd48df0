/**
 * Time, injected. Everything that reads the time or waits takes a Clock, so the pure core and the adapters
 * run on the system clock in production, on a faster-than-real-time clock beside the simulator, and on a
 * manual clock in tests (no sleeps in tests).
 */

import type { InFlight } from './in-flight.js';

export interface Clock {
  /** Milliseconds since the Unix epoch, in this clock's time. */
  now(): number;
  /** Resolves after `ms` of this clock's time. Rejects with the signal's reason when aborted. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

function abortable(signal: AbortSignal | undefined, start: (done: () => void) => () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      cancel();
      reject(signal?.reason);
    };
    const cancel = start(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    abortable(signal, (done) => {
      const t = setTimeout(done, Math.max(0, ms));
      return () => clearTimeout(t);
    }),
};

/**
 * A clock that starts at `origin` and runs `speed` times faster than real time (speed 1 = real time).
 * Used to play a race day faster; the simulator and racewire share one so that both see the same time.
 */
export function createScaledClock(opts: {
  origin: number;
  speed: number;
  real?: Clock;
}): Clock & { speed: number } {
  const real = opts.real ?? systemClock;
  const realStart = real.now();
  return {
    speed: opts.speed,
    now: () => Math.floor(opts.origin + (real.now() - realStart) * opts.speed),
    sleep: (ms, signal) => real.sleep(ms / opts.speed, signal),
  };
}

export interface ManualClock extends Clock {
  /** Moves time forward by `ms`, waking sleepers in time order and letting their continuations run. */
  advance(ms: number): Promise<void>;
  /** Number of pending sleeps (useful to await a component reaching its next wait). */
  pending(): number;
}

/** Event-loop turns a settle gives promise chains woken by a timer to reach their next wait. */
const SETTLE_TURNS = 20;
/** Real time a settle waits for outside I/O to end, each time (a bound, so a stuck request cannot hang a run). */
const IO_WAIT_MS = 30_000;

/**
 * A clock for tests: time moves only when told to. `io` says outside I/O is in flight (an HTTP request, a
 * Redis command) that a woken sleeper started: time moves on only once it is answered, so a run driving real
 * sockets (the soak) sees each request answered at the instant it was made, as a fast network would. The
 * clock waits on `io.idle()`, not by turning the event loop, so a wait costs no CPU.
 */
export function createManualClock(
  start = 0,
  opts: { io?: Pick<InFlight, 'busy' | 'idle'> } = {},
): ManualClock {
  let now = start;
  let nextId = 0;
  const sleepers = new Map<number, { at: number; wake: () => void }>();
  const io = opts.io;
  const settle = async () => {
    for (;;) {
      // Let promise chains woken by a timer run to their next wait before time moves on.
      for (let i = 0; i < SETTLE_TURNS; i++) await new Promise<void>((r) => setImmediate(r));
      // I/O they started: wait for its answers, then let what those woke run in turn.
      if (!io?.busy()) return;
      if (!(await idleWithin(io, IO_WAIT_MS))) return;
    }
  };
  return {
    now: () => now,
    sleep: (ms, signal) =>
      abortable(signal, (done) => {
        const id = nextId++;
        sleepers.set(id, { at: now + Math.max(0, ms), wake: done });
        return () => sleepers.delete(id);
      }),
    pending: () => sleepers.size,
    async advance(ms) {
      const target = now + ms;
      await settle();
      for (;;) {
        let nextEntry: [number, { at: number; wake: () => void }] | undefined;
        for (const entry of sleepers) {
          if (entry[1].at <= target && (!nextEntry || entry[1].at < nextEntry[1].at)) nextEntry = entry;
        }
        if (!nextEntry) break;
        now = Math.max(now, nextEntry[1].at);
        sleepers.delete(nextEntry[0]);
        nextEntry[1].wake();
        await settle();
      }
      now = target;
      await settle();
    },
  };
}

/** Whether `io` went idle within `ms` of real time. */
async function idleWithin(io: Pick<InFlight, 'idle'>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([io.idle().then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
