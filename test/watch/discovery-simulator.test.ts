/**
 * Discovery against the simulator, which pages /meetings as the live API does (limit default 100, at most
 * 200, offset): through the real client and limiter, in-process, on a manual clock, every meeting the
 * simulated world dates yesterday, today or tomorrow is found, at one request per page.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator } from '../../src/simulator/index.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { createPoller } from '../../src/watch/fetch/poller.js';
import { windowDates } from '../../src/watch/schedule/discovery-windows.js';
import type { Pick, SchedulerInput } from '../../src/watch/schedule/scheduler.js';

const discoveryOnly = (input: SchedulerInput): Pick =>
  !input.discoveryInFlight && input.now >= input.discoveryDueAt
    ? { kind: 'discovery' }
    : { kind: 'idle', until: input.discoveryDueAt };

async function discoverOnce(pageSize: number) {
  const clock = createManualClock(Date.parse('2026-11-22T09:00:00Z'));
  const sim = await createSimulator({ seed: 3, clock, rateLimit: false });
  const pages: string[] = [];
  const inProcess = createInProcessFetch(sim, (url) => {
    if (url.pathname.endsWith('/meetings'))
      pages.push(`${url.searchParams.get('date_from')}@${url.searchParams.get('offset')}`);
  });
  const client = createRacingClient({
    baseUrl: 'http://sim.test/affiliates/v1/racing',
    limiter: createRateLimiter({ maxPerMinute: 1000, clock }),
    clock,
    fetch: inProcess.fetch,
  });
  const poller = createPoller({
    source: { meetings: (q, ro) => client.meetings(q, ro), event: async () => ({}) as EventResponse },
    onEvent: async () => ({ kind: 'unchanged' }),
    clock,
    logger: pino({ level: 'silent' }),
    subscribers: () => new Map(),
    discoveryIntervalMs: 6_000,
    discoveryPageSize: pageSize,
    strategy: discoveryOnly,
  });
  poller.start();
  await clock.advance(0);
  await poller.stop();
  await sim.close();
  const dates = windowDates(clock.now());
  const dateOf = (m: { date: number }) => new Date(m.date).toISOString().slice(0, 10);
  const listed = sim.world.meetings.filter(
    (m) => dates.includes(dateOf(m)) && sim.world.listed(m, clock.now()),
  );
  const perDay = dates.map((date) => listed.filter((m) => dateOf(m) === date).length);
  const expectedPages = dates.flatMap((date, day) =>
    Array.from(
      { length: Math.floor((perDay[day] as number) / pageSize) + 1 },
      (_, i) => `${date}@${i * pageSize}`,
    ),
  );
  return { poller, listed, pages, expectedPages, perDay };
}

describe('discovery against the simulator', () => {
  for (const [pageSize, requests] of [
    [200, 3],
    [100, 3],
    [50, 6],
  ] as const) {
    it(`finds every meeting of yesterday, today and tomorrow in ${requests} requests at pages of ${pageSize}`, async () => {
      const { poller, listed, pages, expectedPages, perDay } = await discoverOnce(pageSize);
      // The simulator lays the real day (76 meetings) on every day.
      expect(perDay).toEqual([76, 76, 76]);
      expect(pages).toEqual(expectedPages);
      expect(pages).toHaveLength(requests);
      const found = new Set([...poller.races().values()].map((r) => r.meetingId));
      expect(found).toEqual(new Set(listed.map((m) => m.id)));
      expect(poller.races().size).toBe(listed.reduce((n, m) => n + m.races.length, 0));
    });
  }
});
