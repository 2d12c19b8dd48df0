/**
 * Reconnect delays: exponential growth capped at `maxMs`, then full jitter over [0, cap) (AWS
 * "Exponential Backoff and Jitter"). Jitter after the cap keeps a herd of clients spread even once they
 * all sit at the cap.
 */
export interface BackoffOptions {
  /** @default 500 */
  baseMs: number;
  /** @default 30000 */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, maxMs: 30_000 };

export function backoffDelay(
  attempt: number,
  opts: BackoffOptions,
  random: () => number = Math.random,
): number {
  const capped = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.min(attempt, 30));
  return Math.floor(random() * capped);
}
