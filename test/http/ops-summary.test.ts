import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { opsSummary } from '../../src/http/ops-summary.js';
import type { RateLimiterStats } from '../../src/upstream/rate-limiter.js';
import { planBudget } from '../../src/watch/schedule/budget-plan.js';
import type { DiscoveryStatus } from '../../src/watch/schedule/discovery-windows.js';
import { pollPolicy } from '../../src/watch/schedule/poll-policy.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';
import { watchedRace } from '../support/race-watch.js';

const NOW = Date.parse('2026-11-25T08:00:00Z');
const MIN = 60_000;

const race = (raceId: string, toStart: number): RaceWatch =>
  watchedRace({
    raceId,
    startTime: NOW + toStart,
    discoveredAt: NOW - MIN,
    lastFetchAt: NOW - 5_000,
    lastGoodAt: NOW - 5_000,
  });

describe('the operations summary', () => {
  const races = new Map<string, RaceWatch>();
  for (let i = 0; i < 12; i++) races.set(`near-${i}`, race(`near-${i}`, 5 * MIN));
  for (let i = 0; i < 40; i++) races.set(`far-${i}`, race(`far-${i}`, 8 * 60 * MIN));
  races.set('unfetched', {
    ...race('unfetched', 8 * 60 * MIN),
    lastFetchAt: undefined,
    lastGoodAt: undefined,
  });
  const subscribers = new Map([['far-0', 2]]);
  const summary = (limiter: Partial<RateLimiterStats>, discovery?: () => DiscoveryStatus | undefined) =>
    opsSummary({
      clock: Object.assign(createManualClock(NOW), { speed: 10 }),
      wall: createManualClock(NOW),
      limiter: {
        stats: () => ({
          maxPerMinute: 100,
          used: 100,
          left: 0,
          queued: 4,
          inFlight: 1,
          pausedUntil: null,
          paceIntervalMs: null,
          ...limiter,
        }),
      },
      view: () => ({
        races: () => races,
        staleness: () => 5_000,
        lastDiscoveryAt: () => NOW,
        listedDays: () => [],
      }),
      subscribers: () => subscribers,
      discoveryIntervalMs: 6_000,
      ws: () => ({ connections: 1, subscribers: new Map([['far-0', 2]]), slowDisconnects: 0 }),
      sse: () => ({ connections: 0, subscribers: new Map(), slowDisconnects: 0 }),
      webhooks: { stats: async () => ({ pending: 0, failing: 0 }) as never },
      discovery,
      spent: () => spent,
      usage: () => ({ rssBytes: 300e6, heapUsedBytes: 120e6, dataDirBytes: 2e9 }),
    })();
  const spent = { discovery: 10, nearJump: 70, postJump: 2, lateScratchings: 0, earlyScratchings: 11 };

  it('says whether the budget is spent by design, where it goes, and what each race is planned to get', async () => {
    const ops = await summary({});
    const plan = planBudget({ races: races.values(), now: NOW, subscribers, racesPerMinute: 90 });
    expect(ops.budget).toEqual({
      maxPerMinute: 100,
      used: 100,
      left: 0,
      queued: 4,
      paused: false,
      saturated: true,
      discoveryPerMinute: 10,
      nearJump: 12,
      nearJumpShare: plan.nearJumpShare,
      slices: {
        planned: {
          discovery: 10,
          nearJump: Math.round(plan.slices.nearJump * 10) / 10,
          postJump: 0,
          lateScratchings: 0,
          earlyScratchings: Math.round(plan.slices.earlyScratchings * 10) / 10,
        },
        spent,
      },
    });
    // 12 races at their jump are a peak (PEAK_RACES, issue 26): the races 8 h out (more than 3 h) get no far
    // turn in it, so of them only the subscribed one is planned, every 10 s; the rest goes to the races at
    // their jump.
    expect(plan.slices.earlyScratchings).toBeCloseTo(6, 6);
    expect(plan.slices.nearJump).toBeCloseTo(84, 6);
    // Out of a peak (9 races at their jump) the far share, 1 % of the 90 race requests a minute, goes to the 41
    // races 8 h out: each every ~46 minutes, past its minimum interval (~10 min); the subscribed one every 10 s.
    const quiet = [...races.values()].filter((r) => !['near-9', 'near-10', 'near-11'].includes(r.raceId));
    const calm = planBudget({ races: quiet, now: NOW, subscribers, racesPerMinute: 90 });
    const farMin = pollPolicy(races.get('far-1')!, NOW, 0)!.minIntervalMs;
    const farEachMin = 41 / (0.01 * 90);
    expect(farEachMin * MIN).toBeGreaterThan(farMin);
    expect(calm.slices.earlyScratchings).toBeCloseTo(40 / farEachMin + 6, 6);
    expect(calm.slices.nearJump).toBeCloseTo(90 - calm.slices.earlyScratchings, 6);
    // Planned for every race (out of a peak; in one the far races are left out), sent for those with data
    // (whose age it judges).
    expect(calm.intervalMs.has('unfetched')).toBe(true);
    expect(plan.intervalMs.has('unfetched')).toBe(false);
    expect(ops.plannedMs).toEqual(
      Object.fromEntries(
        [...plan.intervalMs].filter(([id]) => id !== 'unfetched').map(([id, ms]) => [id, Math.round(ms)]),
      ),
    );
    // The subscribed race is fetched at least every 10 s, as the scheduler promises a watcher.
    expect(ops.plannedMs['far-0']).toBe(10_000);
    expect(ops.clockSpeed).toBe(10);
    expect(ops.process).toEqual({ rssBytes: 300e6, heapUsedBytes: 120e6, dataDirBytes: 2e9 });
  });

  it('reports a 429 pause, the one budget state that is a fault', async () => {
    expect((await summary({ pausedUntil: NOW + 30_000 })).budget.paused).toBe(true);
  });

  it('shows this node’s discovery: failing days with their code and message, and alarms; null when it does not poll', async () => {
    const status: DiscoveryStatus = {
      ok: false,
      failing: [
        {
          date: '2026-11-25',
          code: 'DISCOVERY_WRONG_DAY',
          message:
            '/meetings for 2026-11-25 at offset 0 answered with meeting m1 dated 2026-11-26T00:00:00Z: it cannot be that day',
          failures: 2,
          failedAt: '2026-11-25T07:59:50.000Z',
        },
      ],
      alarms: [
        {
          date: '2026-11-26',
          code: 'DISCOVERY_OFFSET_IGNORED',
          message: 'paging stopped',
          refreshedAt: '2026-11-25T07:59:00.000Z',
        },
      ],
    };
    expect((await summary({}, () => status)).discovery).toEqual(status);
    expect((await summary({}, () => undefined)).discovery).toBeNull();
    expect((await summary({})).discovery).toBeNull();
  });

  it('answers the last webhook figures, marked stale with Redis down, when the store does not answer in time', async () => {
    const wall = createManualClock(NOW);
    let stats = async () => ({ pending: 7, failing: 1 });
    const ops = opsSummary({
      clock: createManualClock(NOW),
      wall,
      limiter: { stats: () => ({ maxPerMinute: 100, used: 0, left: 100, queued: 0 }) as never },
      view: () => ({
        races: () => races,
        staleness: () => 5_000,
        lastDiscoveryAt: () => NOW,
        listedDays: () => [],
      }),
      subscribers: () => subscribers,
      discoveryIntervalMs: 6_000,
      ws: () => ({ connections: 0, subscribers: new Map(), slowDisconnects: 0 }),
      sse: () => ({ connections: 0, subscribers: new Map(), slowDisconnects: 0 }),
      webhooks: { stats: () => stats() as never },
      usage: () => ({ rssBytes: 300e6, heapUsedBytes: 120e6 }),
      cluster: () => ({ node: 'n1', leader: true, redisUp: true }),
    });
    const fresh = await ops();
    expect([fresh.webhooks, fresh.cluster]).toEqual([
      { pending: 7, failing: 1 },
      { node: 'n1', leader: true, redisUp: true },
    ]);

    stats = () => new Promise(() => {}); // Redis paused: the command never answers
    const answer = ops();
    await wall.advance(300);
    const stale = await answer;
    expect([stale.webhooks, stale.cluster]).toEqual([
      { pending: 7, failing: 1, stale: true },
      { node: 'n1', leader: true, redisUp: false },
    ]);
  });
});
