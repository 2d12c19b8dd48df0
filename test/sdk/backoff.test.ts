import { describe, expect, it } from 'vitest';
import { backoffDelay } from '../../clients/js/src/backoff.js';

describe('backoffDelay', () => {
  const opts = { baseMs: 100, capMs: 1000 };

  it('grows exponentially up to the cap at the top of the jitter range', () => {
    const top = () => 0.999999;
    expect([0, 1, 2, 3, 4, 10].map((a) => backoffDelay(a, opts, top))).toEqual([99, 199, 399, 799, 999, 999]);
  });

  it('applies full jitter after the cap, so delays at the cap still spread over [0, cap)', () => {
    expect(backoffDelay(20, opts, () => 0)).toBe(0);
    expect(backoffDelay(20, opts, () => 0.5)).toBe(500);
  });
});
