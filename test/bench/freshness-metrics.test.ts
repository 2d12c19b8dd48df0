import { describe, expect, it } from 'vitest';
import { bandGaps, latencyBuckets } from '../../bench/support/freshness-metrics.js';
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

  it('ends an abandoned race’s 1-3 h band when it was abandoned: nothing is left to see (issue 26)', () => {
    // Start 111 minutes into the run: in the band from the warm-up's end (20) to 51 minutes; abandoned at 21.
    const race = { raceId: 'r1', startTime: FROM + 111 * MIN };
    const visits = [{ raceId: 'r1', at: FROM + 21 * MIN }];
    expect(bandGaps([race], visits, FROM + 20 * MIN, FROM + 60 * MIN)).toEqual([
      { raceId: 'r1', gap: 30 * MIN },
    ]);
    const abandoned = { ...race, abandonedAt: FROM + 21 * MIN - 1 };
    expect(bandGaps([abandoned], visits, FROM + 20 * MIN, FROM + 60 * MIN)).toEqual([]);
    const later = { ...race, abandonedAt: FROM + 35 * MIN };
    expect(bandGaps([later], visits, FROM + 20 * MIN, FROM + 60 * MIN)).toEqual([
      { raceId: 'r1', gap: 14 * MIN },
    ]);
  });
});
