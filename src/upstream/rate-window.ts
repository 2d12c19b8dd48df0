/**
 * The request window every node of a deployment spends from (the limiter's `sharedWindow`): a sliding 60 s
 * window of request starts. Adapters: memory-rate-window.ts (one process) and redis-rate-window.ts (several
 * nodes); one contract suite runs against both.
 */
import type { Clock } from '../clock.js';
import type { Admission, SharedWindow } from './rate-limiter.js';

export const RATE_WINDOW_MS = 60_000;
/**
 * How long a start is held past 60 s by the windows that must cover more than one process's clock (several
 * nodes in Redis, a node and its restart in DATA_DIR): see RedisRateWindowOptions.marginMs.
 */
export const WINDOW_MARGIN_MS = 2_000;

export interface RateWindowStats {
  /** Starts within the last 60 s, across all nodes. */
  used: number;
  limit: number;
  /** 0 when a request may start now; otherwise how long until a slot frees. */
  nextFreeInMs: number;
}

export interface RateWindow extends SharedWindow {
  /** Waits (on the clock) until a request is admitted. Rejects with the signal's reason when aborted. */
  acquire(signal?: AbortSignal): Promise<void>;
  stats(): Promise<RateWindowStats>;
}

/** Asks until admitted, sleeping on the clock for as long as each refusal says. */
export async function waitForSlot(
  tryAcquire: () => Promise<Admission>,
  clock: Clock,
  signal?: AbortSignal,
): Promise<void> {
  for (;;) {
    signal?.throwIfAborted();
    const admission = await tryAcquire();
    if (admission.admitted) return;
    await clock.sleep(admission.retryInMs, signal);
  }
}
