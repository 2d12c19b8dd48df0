import { describe, expect, it } from 'vitest';
import { bandGaps, latencyBuckets, requestYield } from '../../bench/support/freshness-metrics.js';
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

  it('counts what each request found since its race’s previous fetch, and a listing any status change (issue 26)', () => {
    const journal = [
      change(FROM + 30 * MIN + 10_000, 'status', { from: 'Closed', to: 'Interim' }),
      change(FROM + 30 * MIN + 40_000, 'dividends'),
    ];
    const requests = [
      { raceId: 'r1', at: FROM + 25 * MIN, slice: 'near jump' },
      { at: FROM + 30 * MIN + 6_000, slice: 'discovery' },
      { at: FROM + 30 * MIN + 12_000, slice: 'discovery' },
      { raceId: 'r1', at: FROM + 30 * MIN + 13_000, slice: 'dirty' },
      { raceId: 'r1', at: FROM + 30 * MIN + 27_000, slice: 'Interim' },
      { raceId: 'r1', at: FROM + 30 * MIN + 37_000, slice: 'Interim' },
      { raceId: 'r1', at: FROM + 30 * MIN + 47_000, slice: 'Interim' },
      { raceId: 'r2', at: FROM + 31 * MIN, slice: 'far' },
    ];
    const yields = requestYield(requests, journal, FROM + 20 * MIN, FROM + 55 * MIN);
    expect(Object.fromEntries(yields)).toEqual({
      'near jump': { requests: 1, found: 0, first: 1, kinds: {} },
      discovery: { requests: 2, found: 1, first: 1, kinds: { status: 1 } },
      dirty: { requests: 1, found: 1, first: 0, kinds: { status: 1 } },
      Interim: { requests: 3, found: 1, first: 0, kinds: { dividends: 1 } },
      far: { requests: 1, found: 0, first: 1, kinds: {} },
    });
  });
});
