/**
 * A single node's request window that outlives the process. The provider counts requests, not processes: a
 * node killed and started again must not spend, on top of what the killed one sent in the last minute, a
 * fresh budget and a start-up burst. So every admission is written ahead of its send (window-checkpoint.ts:
 * DATA_DIR, replaced whole, synced) and a new process starts from the starts kept there.
 *
 * Starts are held 60 s plus the margin the shared Redis window uses (WINDOW_MARGIN_MS), for the same reason:
 * two processes' requests take different times to reach the provider. The window runs on the wall clock,
 * the provider's time. When nothing is readable (never written, deleted, corrupt), the node starts as if the
 * last window were as full as a limiter with this budget could have left it (`assumedFullWindow`) and ramps
 * up as those starts leave it. When the checkpoint cannot be written, nothing is admitted: a request that a
 * restart could not count is not sent.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { createMemoryRateWindow } from './memory-rate-window.js';
import { type Admission, defaultBurst } from './rate-limiter.js';
import { RATE_WINDOW_MS, type RateWindow, WINDOW_MARGIN_MS, waitForSlot } from './rate-window.js';
import type { WindowCheckpoint } from './window-checkpoint.js';

/** How long to wait before asking again after the checkpoint could not be written. */
const WRITE_RETRY_MS = 1_000;

export interface DurableRateWindowOptions {
  maxPerMinute: number;
  /** The wall clock: the provider counts requests on its own time, whatever the race clock does. */
  clock: Clock;
  checkpoint: WindowCheckpoint;
  logger: Logger;
  /** Held past 60 s before a slot is given again. @default WINDOW_MARGIN_MS (2 s) */
  marginMs?: number;
  /** The limiter's burst, which bounds what a lost window can hold at its end. @default defaultBurst */
  burst?: number;
}

/**
 * The fullest window a limiter with this budget and burst can leave at `now`: `burst` starts at `now` and one
 * every 60 s / maxPerMinute before them (its token bucket allows no more in any interval ending now), with
 * `maxPerMinute` in all. A node that starts from it sends nothing until the oldest of them leaves the window,
 * then one request per 60 s / maxPerMinute, and never more in any minute than such a window would allow.
 */
export function assumedFullWindow(now: number, maxPerMinute: number, burst: number): number[] {
  const atNow = Math.min(burst, maxPerMinute);
  const step = RATE_WINDOW_MS / maxPerMinute;
  const earlier = Array.from({ length: maxPerMinute - atNow }, (_, i) =>
    Math.ceil(now - (maxPerMinute - atNow - i) * step),
  );
  return [...earlier, ...Array.from({ length: atNow }, () => now)];
}

export async function createDurableRateWindow(opts: DurableRateWindowOptions): Promise<RateWindow> {
  const { maxPerMinute, clock, checkpoint, logger } = opts;
  const now = Math.floor(clock.now());
  const kept = await checkpoint.read();
  if (kept === undefined) {
    logger.info(
      { maxPerMinute },
      'no request window kept in DATA_DIR; ramping up as if the last one were full',
    );
  }
  // A start kept from a later instant (the wall clock was set back) is held from now, not for hours.
  const spent =
    kept?.map((t) => Math.min(t, now)) ??
    assumedFullWindow(now, maxPerMinute, opts.burst ?? defaultBurst(maxPerMinute));
  const window = createMemoryRateWindow({
    maxPerMinute,
    clock,
    marginMs: opts.marginMs ?? WINDOW_MARGIN_MS,
    spent,
  });

  // Writes run one after another, each with the window as it was at its admission.
  let writing: Promise<void> = Promise.resolve();
  const tryAcquire = async (): Promise<Admission> => {
    const admission = await window.tryAcquire();
    if (!admission.admitted) return admission;
    const held = window.held();
    const written = writing.then(() => checkpoint.write(held));
    writing = written.catch(() => {});
    try {
      await written;
      return admission;
    } catch (err) {
      // The slot stays spent in memory: the request may not go, but the budget is not given back either.
      logger.warn({ err }, 'request window not written to DATA_DIR; holding requests');
      return { admitted: false, retryInMs: WRITE_RETRY_MS };
    }
  };

  return {
    tryAcquire,
    sendWithinMs: window.sendWithinMs,
    acquire: (signal) => waitForSlot(tryAcquire, clock, signal),
    stats: () => window.stats(),
  };
}
