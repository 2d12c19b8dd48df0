/**
 * The request window in process: the same sliding 60 s window as the Redis one (redis-rate-window.ts), for
 * a single node and for several in-process nodes in tests. One contract suite runs against both
 * (test/cluster/rate-window.contract.ts). Starts are kept as a sorted list of clock times; the list never
 * holds more than `maxPerMinute` of them. It can begin with starts already spent (`spent`), which is how a
 * node's window outlives a restart (durable-rate-window.ts).
 */
import type { Clock } from '../clock.js';
import type { Admission } from './rate-limiter.js';
import { RATE_WINDOW_MS, type RateWindow, waitForSlot } from './rate-window.js';

export interface MemoryRateWindowOptions {
  maxPerMinute: number;
  clock: Clock;
  /** As in RedisRateWindowOptions; one process has no arrival jitter between nodes to cover. @default 0 */
  marginMs?: number;
  /** Starts already spent (clock times, any order): the latest `maxPerMinute` of them are held. @default [] */
  spent?: readonly number[];
}

export interface MemoryRateWindow extends RateWindow {
  /** The starts still held, ascending: what a checkpoint of the window must keep. */
  held(): number[];
}

export function createMemoryRateWindow(opts: MemoryRateWindowOptions): MemoryRateWindow {
  const { maxPerMinute, clock } = opts;
  const holdMs = RATE_WINDOW_MS + (opts.marginMs ?? 0);
  if (!Number.isSafeInteger(maxPerMinute) || maxPerMinute <= 0) {
    throw new RangeError(`maxPerMinute must be a positive integer, got ${maxPerMinute}`);
  }
  const starts = [...(opts.spent ?? [])].sort((a, b) => a - b).slice(-maxPerMinute);
  const expire = (now: number) => {
    const kept = starts.findIndex((t) => t > now - holdMs);
    starts.splice(0, kept === -1 ? starts.length : kept);
  };

  const tryAcquire = async (): Promise<Admission> => {
    const now = Math.floor(clock.now());
    expire(now);
    if (starts.length < maxPerMinute) {
      starts.push(now);
      return { admitted: true };
    }
    return { admitted: false, retryInMs: Math.max(1, starts[0]! + holdMs - now) };
  };

  return {
    tryAcquire,
    // One process alone: no margin asked for, no send deadline (see SharedWindow.sendWithinMs); with one,
    // half of it for the wait before the send, as the Redis window.
    sendWithinMs: opts.marginMs === undefined ? undefined : opts.marginMs / 2,
    acquire: (signal) => waitForSlot(tryAcquire, clock, signal),
    async stats() {
      const now = Math.floor(clock.now());
      expire(now);
      const nextFreeInMs = starts.length < maxPerMinute ? 0 : starts[0]! + holdMs - now;
      return { used: starts.length, limit: maxPerMinute, nextFreeInMs };
    },
    held() {
      expire(Math.floor(clock.now()));
      return [...starts];
    },
  };
}
