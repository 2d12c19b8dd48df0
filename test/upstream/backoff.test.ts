import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  backoffCeiling,
  backoffDelay,
  DEFAULT_RETRY_POLICY,
  retryAfterDelay,
} from '../../src/upstream/backoff.js';

const policy = { baseMs: 500, capMs: 30_000 };

describe('back-off', () => {
  it('doubles its ceiling on every retry until the cap', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7].map((n) => backoffCeiling(n, policy))).toEqual([
      500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
  });

  it('scales the ceiling by the injected random number (full jitter)', () => {
    expect(backoffDelay(0, policy, () => 0)).toBe(0);
    expect(backoffDelay(2, policy, () => 0.5)).toBe(1_000);
    expect(backoffDelay(10, policy, () => 0.25)).toBe(7_500);
    expect(backoffDelay(3, policy, () => 0.999_999)).toBe(3_999);
  });

  it('always stays within [0, min(cap, base * 2^n)]', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (n, r) => {
          const d = backoffDelay(n, policy, () => r);
          return d >= 0 && d <= Math.min(30_000, 500 * 2 ** n);
        },
      ),
    );
  });

  it('clamps a random source that strays outside [0, 1)', () => {
    expect(backoffDelay(1, policy, () => -3)).toBe(0);
    expect(backoffDelay(1, policy, () => 7)).toBe(1_000);
  });

  it('has the documented defaults', () => {
    expect(DEFAULT_RETRY_POLICY).toEqual({
      maxAttempts: 4,
      baseMs: 500,
      capMs: 30_000,
      defaultRetryAfterMs: 5_000,
      maxRetryAfterMs: 300_000,
    });
  });

  it('takes the 429 wait from the header, else the body, else the default, clamped to the maximum', () => {
    const p = { defaultRetryAfterMs: 5_000, maxRetryAfterMs: 60_000 };
    expect(retryAfterDelay(2_000, 9, p)).toBe(2_000);
    expect(retryAfterDelay(undefined, 9, p)).toBe(9_000);
    expect(retryAfterDelay(undefined, undefined, p)).toBe(5_000);
    expect(retryAfterDelay(86_400_000, undefined, p)).toBe(60_000);
  });
});
