import { describe, expect, it } from 'vitest';
import { latencyBuckets } from '../../bench/support/freshness-metrics.js';
import type { SimChange } from '../../src/simulator/index.js';

const FROM = Date.parse('2026-11-19T17:00:00Z');
const MIN = 60_000;
const change = (at: number, type: SimChange['type'], detail: Record<string, unknown> = {}): SimChange => ({
  at,
  raceId: 'r1',
  meetingId: 'm1',
  type,
  detail,
});

describe('the freshness benchmarks’ latency buckets', () => {
  it('counts early scratchings over the whole measured window, so a 1-hour run reports them (issue 26)', () => {
    const journal = [
      change(FROM + 30 * MIN, 'scratching', { late: false, entrantId: 'e1' }),
      change(FROM + 50 * MIN, 'scratching', { late: false, entrantId: 'e2' }),
    ];
    const seen = (c: SimChange) => (c.detail.entrantId === 'e1' ? c.at + 90_000 : undefined);
    const buckets = latencyBuckets(journal, seen, FROM, FROM + 60 * MIN);
    expect(buckets.get('scratching (early)')).toEqual({ ms: [90_000, Number.POSITIVE_INFINITY], missed: 1 });
  });
});
