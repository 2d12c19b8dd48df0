/**
 * The one limiter every upstream request in the process passes (retries included: a retry is a request).
 *
 * p-queue (concurrency 1) orders who starts next: the highest priority, then first come. The task it runs is
 * only the gate, which holds the head of the queue until every rule allows a start:
 * - an exact sliding window: never more than `maxPerMinute` starts in any `windowMs` (p-queue's own interval
 *   is a fixed window and can let twice the budget through across a boundary, so it is not used);
 * - at most `maxConcurrent` requests in flight;
 * - a pause after a 429 until Retry-After has passed, or until the server's window resets when it says
 *   none are left;
 * - pacing when the server's `X-RateLimit-Remaining` is low: the remaining requests are spread evenly over
 *   the time to its reset.
 * - with several nodes, a slot in the window they share (`sharedWindow`, in Redis), asked for only once
 *   every local rule allows a start, so the queue's priority order holds while the head waits for it; the
 *   request is sent only if it still can be within the window's `sendWithinMs` of asking, else it asks again.
 * `whenReady` lets a caller decide what to send only once a start is allowed (the poller picks its race then:
 * a pick made earlier waits in the queue on ages and statuses that have moved on, issue 26).
 * All time is the injected clock's, so tests drive it with a manual clock.
 */
import PQueue from 'p-queue';
import type { Clock } from '../clock.js';
import { linkSignals } from '../linked-signal.js';
import type { Logger } from '../logger.js';
import { WOKEN } from '../wake-reason.js';
import type { RateLimitInfo } from './response-meta.js';

export interface RateLimiterOptions {
  /** Most request starts in any window. */
  maxPerMinute: number;
  clock: Clock;
  /** Window length. @default 60_000 */
  windowMs?: number;
  /** Most requests in flight at once. @default 8 */
  maxConcurrent?: number;
  /**
   * Most starts in a burst. Starts are paced at maxPerMinute/window on average (a token bucket of this size):
   * without pacing, a saturated sliding window lets its whole budget through in a second and then starves
   * for the rest of the minute, which is the worst shape for freshness. @default ceil(maxPerMinute / 20)
   */
  burst?: number;
  /** Pace when the server's remaining budget is at or below this fraction of its limit. @default 0.2 */
  lowBudgetFraction?: number;
  /**
   * The window every node of a deployment spends from (src/upstream/redis-rate-window.ts). When it cannot
   * be reached, nothing starts: the budget is law, so an unknown global count means no request.
   */
  sharedWindow?: SharedWindow;
  logger?: Logger;
}

/** The default burst: a twentieth of the budget (5 at 100 per minute, 2 at 40). */
export const defaultBurst = (maxPerMinute: number): number => Math.ceil(maxPerMinute / 20);

export type Admission = { admitted: true } | { admitted: false; retryInMs: number };

/** A budget shared with other processes: admits one start now, or says when to ask again. */
export interface SharedWindow {
  tryAcquire(): Promise<Admission>;
  /**
   * How long after asking an admitted start may still be sent. The window records a start at the instant it
   * was asked for and holds it only this long past the window, so a start sent later (its process was
   * suspended, or the reply sat in a reconnecting client) could share one of the provider's minutes with
   * a full window's worth of others: the limiter drops such an admission (its slot stays spent) and asks
   * again. Undefined: no limit.
   */
  readonly sendWithinMs?: number;
}

const SHARED_WINDOW_RETRY_MS = 1_000;

export interface ScheduleOptions {
  /** Greater runs first. @default 0 */
  priority?: number;
  /** Aborting removes a request that has not started yet. */
  signal?: AbortSignal;
}

export interface RateLimiterStats {
  maxPerMinute: number;
  /** Starts in the current window (the last `windowMs`). */
  used: number;
  /** Starts the window still allows now. */
  left: number;
  /** Requests waiting to start. */
  queued: number;
  inFlight: number;
  /** Epoch ms (clock time) until which nothing starts, or null when not paused. */
  pausedUntil: number | null;
  /** Minimum gap between starts while the server's budget is low, or null when not pacing. */
  paceIntervalMs: number | null;
}

export interface RateLimiter {
  /** Runs `fn` once the budget allows; resolves or rejects with what `fn` does. */
  schedule<T>(fn: () => Promise<T>, opts?: ScheduleOptions): Promise<T>;
  /**
   * Resolves once a request scheduled at that moment would start at once: nothing waits in the queue and
   * every local rule allows a start (the shared window is asked only by the start itself). Starts nothing
   * and holds nothing: a caller that schedules in the same tick gets the start.
   */
  whenReady(signal?: AbortSignal): Promise<void>;
  /** Feeds the rate-limit headers of a response in (pacing, or a pause when none are left). */
  observe(info: RateLimitInfo): void;
  /** Holds every start for `ms` from now (after a 429); extends, never shortens, a pause. */
  pauseFor(ms: number): void;
  stats(): RateLimiterStats;
  /** Rejects every request not yet started with LimiterClosedError; later calls reject too. */
  close(): void;
}

export class LimiterClosedError extends Error {
  readonly code = 'LIMITER_CLOSED';
  constructor() {
    super('rate limiter closed');
    this.name = this.constructor.name;
  }
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the limiter's queue, window and pacing are one closure's state; its steps are the named functions inside
export function createRateLimiter(opts: RateLimiterOptions): RateLimiter {
  const { clock, maxPerMinute } = opts;
  if (!Number.isInteger(maxPerMinute) || maxPerMinute < 1)
    throw new RangeError('maxPerMinute must be an integer >= 1');
  const windowMs = opts.windowMs ?? 60_000;
  const maxConcurrent = opts.maxConcurrent ?? 8;
  const lowFraction = opts.lowBudgetFraction ?? 0.2;
  const burst = opts.burst ?? defaultBurst(maxPerMinute);
  const refillPerMs = maxPerMinute / windowMs;
  let tokens = burst;
  let tokensAt = clock.now();
  /**
   * While the window is full (from the start that filled it until its oldest start leaves), the bucket fills
   * only up to one start: filled to a burst, it let the burst out the moment the window freed, which the window then held back a minute
   * later as a gap, and that gap filled the bucket for the next burst, every minute (measured: 3 s with no
   * start, the listing's dirty race waiting through it: issue 26).
   */
  let full = { from: 0, until: 0 };
  const queue = new PQueue({ concurrency: 1 });
  // A start leaves the queue (or a request gives its place up): whenReady re-evaluates.
  queue.on('next', () => poke());
  const starts: number[] = []; // ascending start times within the window
  let inFlight = 0;
  let pausedUntil = 0;
  let pace: { intervalMs: number; until: number } | undefined;
  let lastStart = Number.NEGATIVE_INFINITY;
  let closed = false;
  const cancels = new Set<(err: Error) => void>();
  // Aborted whenever a rule changes (a release, a pause, new headers) so the gate re-evaluates.
  let wake = new AbortController();
  const poke = () => {
    const old = wake;
    wake = new AbortController();
    old.abort(WOKEN);
  };

  const prune = (now: number) => {
    while (starts.length > 0 && (starts[0] as number) <= now - windowMs) starts.shift();
  };

  /** Milliseconds until the time-based rules allow a start (0 = now). */
  const timeToStart = (now: number): number => {
    prune(now);
    const held = Math.max(0, Math.min(now, full.until) - Math.max(tokensAt, full.from));
    tokens = Math.min(burst, tokens + (now - tokensAt - held) * refillPerMs);
    // Time the window held starts back fills the bucket up to the one start it frees, not to a burst.
    if (tokens < 1) tokens = Math.min(1, tokens + held * refillPerMs);
    tokensAt = now;
    let wait = tokens >= 1 ? 0 : Math.ceil((1 - tokens) / refillPerMs);
    if (starts.length >= maxPerMinute) {
      wait = Math.max(wait, (starts[starts.length - maxPerMinute] as number) + windowMs - now);
    }
    if (pausedUntil > now) wait = Math.max(wait, pausedUntil - now);
    if (pace && pace.until > now) wait = Math.max(wait, lastStart + pace.intervalMs - now);
    return wait;
  };

  /** When the current admission was asked for (the instant the shared window recorded its start). */
  let askedAt = 0;
  /** 0 when the shared window admitted a start (or there is none), else how long to wait. */
  const admitShared = async (): Promise<number> => {
    if (!opts.sharedWindow) return 0;
    try {
      askedAt = clock.now();
      const admission = await opts.sharedWindow.tryAcquire();
      return admission.admitted ? 0 : admission.retryInMs;
    } catch (err) {
      opts.logger?.warn({ err }, 'shared request window unreachable; holding requests');
      return SHARED_WINDOW_RETRY_MS;
    }
  };

  /** Holds the head of the queue until a start is allowed; an aborted request gives its place up unstarted.
   * Answers the clock time by which the request must be sent (Infinity: no limit). */
  const gate = async ({ signal: abort }: { signal?: AbortSignal }): Promise<number> => {
    for (;;) {
      if (closed) throw new LimiterClosedError();
      abort?.throwIfAborted();
      const now = clock.now();
      const wait = timeToStart(now);
      // inFlight only falls while the shared window answers (this gate is the one place that raises it).
      const ready = wait <= 0 && inFlight < maxConcurrent;
      const shared = ready ? await admitShared() : 0;
      if (closed) throw new LimiterClosedError();
      // Aborted while the shared window admitted it: the slot is spent, but nothing is sent.
      abort?.throwIfAborted();
      if (ready && shared === 0) {
        const startedAt = clock.now(); // the shared admission may have taken a moment
        starts.push(startedAt);
        tokens -= 1;
        if (starts.length >= maxPerMinute)
          full = { from: startedAt, until: (starts[starts.length - maxPerMinute] as number) + windowMs };
        lastStart = startedAt;
        inFlight++;
        return opts.sharedWindow
          ? askedAt + (opts.sharedWindow.sendWithinMs ?? Number.POSITIVE_INFINITY)
          : Number.POSITIVE_INFINITY;
      }
      await waitForChange(shared > 0 ? shared : wait, abort);
    }
  };

  /** Sleeps `ms` (0: until poked), or less when a rule changes or `abort` fires; the caller re-evaluates. */
  const waitForChange = async (ms: number, abort?: AbortSignal): Promise<void> => {
    const linked = abort ? linkSignals(wake.signal, abort) : undefined;
    const signal = linked?.signal ?? wake.signal;
    try {
      if (ms > 0) await clock.sleep(ms, signal);
      else
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
    } catch {
      // poked: re-evaluate
    } finally {
      linked?.dispose();
    }
  };

  /** Waits for the gate in priority order; answers the send deadline of the admission (see `gate`). */
  const admit = async (so: ScheduleOptions): Promise<number> => {
    if (closed) throw new LimiterClosedError();
    let cancel: (err: Error) => void = () => {};
    const cancelled = new Promise<never>((_, reject) => {
      cancel = reject;
    });
    cancels.add(cancel);
    let admitted = false;
    try {
      const started = queue.add(
        async (task) => {
          const sendBy = await gate(task);
          admitted = true;
          return sendBy;
        },
        { priority: so.priority ?? 0, signal: so.signal },
      );
      started.catch(() => {}); // after close() the race below has already settled
      return await Promise.race([started, cancelled]);
    } catch (err) {
      // Aborted or closed just as the gate let it start: give the start's place back.
      if (admitted) {
        inFlight--;
        poke();
      }
      throw err;
    } finally {
      cancels.delete(cancel);
    }
  };

  return {
    async schedule<T>(fn: () => Promise<T>, so: ScheduleOptions = {}): Promise<T> {
      // Checked right before the send: an admission held past its window's margin is dropped, not used.
      for (let sendBy = await admit(so); clock.now() > sendBy; sendBy = await admit(so)) {
        inFlight--;
        poke();
        opts.logger?.warn('request window admission expired before the send; asking again');
      }
      try {
        return await fn();
      } finally {
        inFlight--;
        poke();
      }
    },

    async whenReady(signal) {
      for (;;) {
        if (closed) throw new LimiterClosedError();
        signal?.throwIfAborted();
        const wait = timeToStart(clock.now());
        const free = queue.size === 0 && queue.pending === 0 && inFlight < maxConcurrent;
        if (wait <= 0 && free) return;
        await waitForChange(free ? wait : 0, signal);
      }
    },

    observe(info) {
      if (info.remaining === undefined || info.resetMs === undefined) return;
      const now = clock.now();
      const limit = info.limit ?? maxPerMinute;
      if (info.remaining === 0) {
        pausedUntil = Math.max(pausedUntil, now + info.resetMs);
        opts.logger?.warn({ resetMs: info.resetMs }, 'upstream budget exhausted; pausing until its reset');
      } else if (info.remaining <= limit * lowFraction) {
        pace = { intervalMs: info.resetMs / info.remaining, until: now + info.resetMs };
      } else {
        pace = undefined;
      }
      poke();
    },

    pauseFor(ms) {
      const until = clock.now() + Math.max(0, ms);
      if (until > pausedUntil) {
        pausedUntil = until;
        opts.logger?.warn({ ms }, 'upstream rate limited; pausing every request');
      }
      poke();
    },

    stats() {
      const now = clock.now();
      prune(now);
      return {
        maxPerMinute,
        used: starts.length,
        left: Math.max(0, maxPerMinute - starts.length),
        queued: queue.size + queue.pending,
        inFlight,
        pausedUntil: pausedUntil > now ? pausedUntil : null,
        paceIntervalMs: pace && pace.until > now ? pace.intervalMs : null,
      };
    },

    close() {
      closed = true;
      queue.clear();
      for (const cancel of cancels) cancel(new LimiterClosedError());
      cancels.clear();
      poke();
    },
  };
}
