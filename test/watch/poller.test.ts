import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse, MeetingsResponse } from '../../src/upstream/schemas.js';
import { createPoller, type PollerDeps, type RaceSource } from '../../src/watch/fetch/poller.js';

const T0 = Date.parse('2025-07-17T00:00:00Z');
const meetings = (): MeetingsResponse => ({
  header: { title: 'Race Meetings' },
  data: {
    meetings: [
      {
        meeting: 'm1',
        name: 'Awapuni',
        date: '2025-07-17T00:00:00Z',
        category: 'T',
        country: 'NZ',
        races: ['ok', 'broken'].map((id, i) => ({
          id,
          race_number: i + 1,
          name: `Race ${i + 1}`,
          // Both five minutes from the jump: the near-jump phase, fetched every few seconds.
          start_time: new Date(T0 + 5 * 60_000).toISOString(),
          status: 'Open',
        })),
      },
    ],
  },
});

/** A poller over the two-race meeting above, with `event` as the race source and `onEvent` as the pipeline. */
const pollerOver = (clock: ManualClock, event: RaceSource['event'], onEvent: PollerDeps['onEvent']) =>
  createPoller({
    clock,
    logger: pino({ level: 'silent' }),
    discoveryIntervalMs: 6_000,
    subscribers: () => new Map(),
    source: { meetings: async () => meetings(), event },
    onEvent,
  });

describe('poller', () => {
  it('backs a failing race off without stopping the loop or the other races, one fetch per race at a time', async () => {
    const clock = createManualClock(T0);
    const calls: Record<string, number> = { ok: 0, broken: 0 };
    let concurrent = 0;
    let maxConcurrentPerRace = 0;
    const inFlight = new Map<string, number>();
    const poller = pollerOver(
      clock,
      async (id) => {
        calls[id] = (calls[id] ?? 0) + 1;
        inFlight.set(id, (inFlight.get(id) ?? 0) + 1);
        maxConcurrentPerRace = Math.max(maxConcurrentPerRace, inFlight.get(id)!);
        concurrent++;
        await clock.sleep(200);
        concurrent--;
        inFlight.set(id, inFlight.get(id)! - 1);
        if (id === 'broken')
          throw Object.assign(new Error('upstream 500'), { code: 'UPSTREAM_SERVER_ERROR' });
        return { header: { title: 'Event' }, data: {} } as unknown as EventResponse;
      },
      async () => ({ kind: 'unchanged', status: 'Open', dividends: 'none' }),
    );
    poller.start();
    await clock.advance(60_000);
    await poller.stop();

    expect(concurrent).toBe(0);
    expect(maxConcurrentPerRace).toBe(1);
    // The healthy race is fetched at its 3 s floor; the broken one backs off 2, 4, 8, 16, 32 s.
    expect(calls.ok).toBeGreaterThanOrEqual(18);
    expect(calls.broken).toBeGreaterThanOrEqual(4);
    expect(calls.broken).toBeLessThanOrEqual(6);
    expect(poller.races().get('broken')).toMatchObject({ failures: calls.broken });
    expect(poller.staleness('ok')).toBeLessThan(4_000);
    expect(poller.staleness('broken')).toBeUndefined();
  });

  it('records whether the last document left a claim held, so the scheduler fetches the race again', async () => {
    const clock = createManualClock(T0);
    const poller = pollerOver(
      clock,
      async () => ({ header: { title: 'Event' }, data: {} }) as unknown as EventResponse,
      async (id) => ({
        kind: 'changed',
        status: 'Open',
        dividends: 'none',
        ...(id === 'ok' ? { pending: true } : {}),
      }),
    );
    poller.start();
    await clock.advance(5_000);
    await poller.stop();
    expect(poller.races().get('ok')).toMatchObject({ pending: true });
    expect(poller.races().get('broken')).toMatchObject({ pending: false });
  });

  it('stops at once, dropping requests still waiting for the budget, and makes nothing of them', async () => {
    const clock = createManualClock(T0);
    let onEvent = 0;
    // A source whose requests wait for the budget until aborted (say the shared window is unreachable).
    const waitForBudget = (signal?: AbortSignal) =>
      new Promise<never>((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
    const poller = pollerOver(
      clock,
      async (_id, opts) => waitForBudget(opts?.signal),
      async () => {
        onEvent++;
        return { kind: 'unchanged' };
      },
    );
    poller.start();
    await clock.advance(1_000);
    expect(poller.races().size).toBe(2);
    await poller.stop();
    expect(onEvent).toBe(0);
    expect([...poller.races().values()].map((r) => r.failures)).toEqual([0, 0]);
  });

  it('times each listing from its start, not its end: a day listed in 2 s is still listed every 6 s', async () => {
    const clock = createManualClock(T0);
    const todayStarts: number[] = [];
    const poller = createPoller({
      clock,
      logger: pino({ level: 'silent' }),
      discoveryIntervalMs: 6_000,
      subscribers: () => new Map(),
      source: {
        async meetings(query) {
          const today = query.dateFrom === '2025-07-17';
          if (today) todayStarts.push(clock.now() - T0);
          await clock.sleep(2_000);
          return today ? meetings() : { header: { title: 'Race Meetings' }, data: { meetings: [] } };
        },
        event: async () => ({ header: { title: 'Event' }, data: {} }) as unknown as EventResponse,
      },
      onEvent: async () => ({ kind: 'unchanged', status: 'Open', dividends: 'none' }),
    });
    poller.start();
    await clock.advance(60_000);
    await poller.stop();
    // Yesterday is listed first (0-2 s), then today from 2 s: every 6 s from there, not every 8 s.
    expect(todayStarts).toEqual([2, 8, 14, 20, 26, 32, 38, 44, 50, 56].map((s) => s * 1000));
    // The last minute's requests by slice (after T0: yesterday's listing at T0 is just outside): today's
    // ten listings and tomorrow's one (at 4 s), and the two races at their jump, fetched at their floor.
    const spent = poller.spent();
    expect(spent.discovery).toBe(11);
    expect(spent.nearJump).toBeGreaterThan(30);
    expect([spent.postJump, spent.lateScratchings, spent.earlyScratchings]).toEqual([0, 0, 0]);
  });

  it('picks each race only when the budget has a slot: a race listed Interim goes out one slot after that listing', async () => {
    const clock = createManualClock(T0);
    const limiter = createRateLimiter({ maxPerMinute: 100, clock });
    const interimAt = T0 + 30_000;
    const listings: number[] = [];
    const fetches: { id: string; at: number }[] = [];
    const race = (id: string, status: string, startMs: number, n: number) => ({
      id,
      race_number: n,
      name: `Race ${n}`,
      start_time: new Date(T0 + startMs).toISOString(),
      status,
    });
    const listed = (): MeetingsResponse => {
      const near = ['a', 'b', 'c', 'd', 'e', 'f'].map((id, i) => race(id, 'Open', 5 * 60_000, i + 2));
      const status = clock.now() >= interimAt ? 'Interim' : 'Closed';
      const today = meetings().data.meetings[0]!;
      return {
        ...meetings(),
        data: { meetings: [{ ...today, races: [race('r', status, -120_000, 1), ...near] }] },
      };
    };
    const poller = createPoller({
      clock,
      logger: pino({ level: 'silent' }),
      discoveryIntervalMs: 6_000,
      subscribers: () => new Map(),
      source: {
        meetings: (query, opts) =>
          limiter.schedule(async () => {
            if (query.dateFrom !== '2025-07-17') return { ...meetings(), data: { meetings: [] } };
            listings.push(clock.now());
            return listed();
          }, opts),
        event: (id, opts) =>
          limiter.schedule(async () => {
            fetches.push({ id, at: clock.now() });
            return { header: { title: 'Event' }, data: {} } as unknown as EventResponse;
          }, opts),
        whenReady: (signal) => limiter.whenReady(signal),
      },
      onEvent: async (id) => ({
        kind: 'changed',
        status: id === 'r' ? (clock.now() >= interimAt ? 'Interim' : 'Closed') : 'Open',
        dividends: 'none',
      }),
    });
    poller.start();
    await clock.advance(60_000);
    limiter.close();
    await poller.stop();
    // Six races at their jump ask for more than the budget: every slot is taken (a burst of 5, then one every
    // 600 ms until the window is full at 57 s).
    expect(listings.length + fetches.length).toBeGreaterThanOrEqual(99);
    const shown = listings.find((t) => t >= interimAt)!;
    // The next slot (600 ms at 100 a minute) goes to the race the listing showed Interim; picked before the
    // slot, it queued behind the other worker's routine pick (1.2 s).
    expect(fetches.find((f) => f.id === 'r' && f.at >= shown)!.at - shown).toBe(600);
  });
});
