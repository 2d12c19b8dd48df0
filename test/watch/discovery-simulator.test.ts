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
import { windowDates } from '../../src/watch/discovery-windows.js';
import { createPoller } from '../../src/watch/poller.js';
import type { Pick, SchedulerInput } from '../../src/watch/scheduler.js';

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
  const listed = sim.world.meetings.filter((m) =>
    dates.includes(new Date(m.date).toISOString().slice(0, 10)),
  );
  const expectedPages = dates.flatMap((date) => {
    const n = listed.filter((m) => new Date(m.date).toISOString().startsWith(date)).length;
    return Array.from({ length: Math.floor(n / pageSize) + 1 }, (_, i) => `${date}@${i * pageSize}`);
  });
  return { poller, listed, pages, expectedPages };
}

describe('discovery against the simulator', () => {
  for (const pageSize of [200, 50]) {
    it(`finds every meeting of yesterday, today and tomorrow at one request per page of ${pageSize}`, async () => {
      const { poller, listed, pages, expectedPages } = await discoverOnce(pageSize);
      expect(listed.length).toBeGreaterThan(pageSize === 50 ? 50 : 0);
      expect(pages).toEqual(expectedPages);
      const found = new Set([...poller.races().values()].map((r) => r.meetingId));
      expect(found).toEqual(new Set(listed.filter((m) => m.races.length > 0).map((m) => m.id)));
      expect(poller.races().size).toBe(listed.reduce((n, m) => n + m.races.length, 0));
    });
  }
});
