/**
 * Retry delays, as pure functions: exponential growth capped at `capMs`, then full jitter over [0, cap)
 * (AWS "Exponential Backoff and Jitter"). Jitter after the cap keeps a herd of clients spread even once they
 * all sit at the cap. The SDK reconnects with it and the server retries upstream requests with it
 * (`@racewire/client/backoff`).
 */
export interface BackoffOptions {
  /** @default 500 */
  baseMs: number;
  /** @default 30000 */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 30_000 };

/** Upper bound of the delay before retry number `attempt` (0 = the first retry). */
export function backoffCeiling(attempt: number, opts: BackoffOptions): number {
  return Math.min(opts.capMs, opts.baseMs * 2 ** Math.min(attempt, 30));
}

/** Full-jitter delay before retry number `attempt`; `random` returns a number in [0, 1). */
export function backoffDelay(
  attempt: number,
  opts: BackoffOptions,
  random: () => number = Math.random,
): number {
  const r = Math.min(1, Math.max(0, random()));
  return Math.floor(r * backoffCeiling(attempt, opts));
}
