/**
 * The retry policy, as pure functions: "full jitter" exponential back-off (a random delay in
 * [0, min(cap, base * 2^n)]), which spreads retries of many clients instead of synchronising them. The
 * back-off itself is the SDK's (one implementation for reconnects and upstream retries).
 */
export { backoffCeiling, backoffDelay } from '@racewire/client/backoff';

export interface RetryPolicy {
  /** Total attempts including the first. @default 4 */
  maxAttempts: number;
  /** Back-off base. @default 500 */
  baseMs: number;
  /** Back-off ceiling. @default 30_000 */
  capMs: number;
  /** Wait after a 429 that says neither a Retry-After header nor a body retry_after. @default 5_000 */
  defaultRetryAfterMs: number;
  /** Longest Retry-After honoured; a larger value is clamped (the header is untrusted). @default 300_000 */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 4,
  baseMs: 500,
  capMs: 30_000,
  defaultRetryAfterMs: 5_000,
  maxRetryAfterMs: 300_000,
};

/** How long to wait after a 429: header, else body, else the default; clamped to the policy's maximum. */
export function retryAfterDelay(
  fromHeaderMs: number | undefined,
  fromBodySeconds: number | undefined,
  policy: Pick<RetryPolicy, 'defaultRetryAfterMs' | 'maxRetryAfterMs'>,
): number {
  const ms =
    fromHeaderMs ?? (fromBodySeconds !== undefined ? fromBodySeconds * 1000 : policy.defaultRetryAfterMs);
  return Math.min(policy.maxRetryAfterMs, Math.max(0, ms));
}
