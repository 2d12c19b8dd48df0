/**
 * Discovery against an upstream that pages /meetings as the live API does (limit default 100, at most 200,
 * offset), through the real racing client and one limiter, on a manual clock: every meeting of yesterday,
 * today and tomorrow is found, and what each day's refreshes cost is counted exactly.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse, Meeting } from '../../src/upstream/schemas.js';
import { createPoller, type PollerDeps } from '../../src/watch/fetch/poller.js';
import type { Pick, SchedulerInput } from '../../src/watch/schedule/scheduler.js';
import { createPagingUpstream, realDay } from './paging-upstream.js';

const T = Date.parse('2025-11-22T12:00:00Z');
const MIN = 60_000;

/** Yesterday's races all over; today's over before T and open after; tomorrow's all ahead. */
function threeDays(counts: [number, number, number]): Meeting[] {
  return [
    ...realDay('2025-11-21', counts[0], () => 'Final'),
    ...realDay('2025-11-22', counts[1], (start) => (start < T ? 'Final' : 'Open')),
    ...realDay('2025-11-23', counts[2], () => 'Open'),
  ];
}

/** Only discovery: isolates what it costs from race fetches. */
const discoveryOnly = (input: SchedulerInput): Pick =>
  !input.discoveryInFlight && input.now >= input.discoveryDueAt
    ? { kind: 'discovery' }
    : { kind: 'idle', until: input.discoveryDueAt };

function setup(
  meetings: Meeting[],
  opts: { pageSize?: number; failOnce?: string; strategy?: PollerDeps['strategy'] } = {},
) {
  const clock = createManualClock(T);
  const upstream = createPagingUpstream(meetings, opts.failOnce);
  const client = createRacingClient({
    baseUrl: 'http://upstream.test/affiliates/v1/racing',
    limiter: createRateLimiter({ maxPerMinute: 1000, clock }),
    clock,
    fetch: upstream.fetch,
    retry: { maxAttempts: 1 },
  });
  const status = new Map(meetings.flatMap((m) => m.races.map((r) => [r.id, r.status])));
  const poller = createPoller({
    source: {
      meetings: (query, ro) => client.meetings(query, ro),
      // Race fetches are not what this test counts: they answer at once, outside the upstream.
      event: async () => ({}) as EventResponse,
    },
    onEvent: async (raceId) => ({ kind: 'unchanged', status: status.get(raceId), dividends: 'final' }),
    clock,
    logger: pino({ level: 'silent' }),
    subscribers: () => new Map(),
    discoveryIntervalMs: 6_000,
    discoveryPageSize: opts.pageSize,
    strategy: opts.strategy,
  });
  const pages = () =>
    upstream.requests
      .filter((r) => r.path === '/meetings')
      .map((r) => `${r.query.date_from}@${r.query.offset}`);
  return { clock, poller, pages, upstream };
}

const allRaceIds = (meetings: Meeting[]) => meetings.flatMap((m) => m.races.map((r) => r.id)).sort();

const meetingIdsOf = (meetings: Meeting[]) => new Set(meetings.map((m) => m.meeting));

describe('discovery over a paged /meetings', () => {
  it('finds every meeting of yesterday, today and tomorrow at one request per page of 200', async () => {
    const meetings = threeDays([76, 230, 150]);
    const { clock, poller, pages } = setup(meetings, { strategy: discoveryOnly });
    poller.start();
    await clock.advance(0);
    await poller.stop();
    // 76 fit one page; 230 need a full page and a short one; 150 fit one.
    expect(pages()).toEqual(['2025-11-21@0', '2025-11-22@0', '2025-11-22@200', '2025-11-23@0']);
    expect([...poller.races().keys()].sort()).toEqual(allRaceIds(meetings));
    expect(new Set([...poller.races().values()].map((r) => r.meetingId))).toEqual(meetingIdsOf(meetings));
    expect(poller.lastDiscoveryAt()).toBe(T);
  });

  it('pages at 100 when asked to, and asks once more after a full last page', async () => {
    const meetings = threeDays([76, 230, 200]);
    const { clock, poller, pages } = setup(meetings, { pageSize: 100, strategy: discoveryOnly });
    poller.start();
    await clock.advance(0);
    await poller.stop();
    expect(pages()).toEqual([
      '2025-11-21@0',
      '2025-11-22@0',
      '2025-11-22@100',
      '2025-11-22@200',
      '2025-11-23@0',
      '2025-11-23@100',
      '2025-11-23@200', // empty: only a short page says the day is complete
    ]);
    expect([...poller.races().keys()].sort()).toEqual(allRaceIds(meetings));
  });

  it('refreshes today every interval, tomorrow every 10 minutes until its races come within the hour, and yesterday never once settled', async () => {
    // Small pages keep two hours of refreshes quick: today is 3 of the real day's later meetings (racing
    // past 12:00 UTC), 2 pages of 2; tomorrow its first meeting (from 14:15 UTC), 1 page.
    const meetings = [
      ...realDay('2025-11-21', 1, () => 'Final'),
      ...realDay('2025-11-22', 3, (start) => (start < T ? 'Final' : 'Open'), 70),
      ...realDay('2025-11-23', 1, () => 'Open'),
    ];
    const { clock, poller, pages } = setup(meetings, { pageSize: 2, strategy: discoveryOnly });
    poller.start();
    await clock.advance(120 * MIN); // 12:00 to 14:00 UTC
    await poller.stop();
    const count = (page: string) => pages().filter((p) => p === page).length;
    expect(count('2025-11-21@0')).toBe(1);
    // Today: 2 pages every 6 s from 12:00:00 to 14:00:00 inclusive.
    expect(count('2025-11-22@0')).toBe(1201);
    expect(count('2025-11-22@2')).toBe(1201);
    // Tomorrow: 12:00, 12:10, ... 13:10 (8), then live from 13:15:00 every 6 s to 14:00:00 (451).
    expect(count('2025-11-23@0')).toBe(8 + 451);
    expect(pages()).toHaveLength(1 + 2402 + 459);
  });

  it('keeps the pages it got when a later page fails, and retries that day after a back-off', async () => {
    const meetings = threeDays([76, 230, 150]);
    const { clock, poller, pages } = setup(meetings, { failOnce: '2025-11-22@200', strategy: discoveryOnly });
    poller.start();
    await clock.advance(0);
    const firstPage = new Set(
      meetings
        .filter((m) => m.date.startsWith('2025-11-22'))
        .sort((a, b) => a.races[0]!.start_time.localeCompare(b.races[0]!.start_time))
        .slice(0, 200)
        .flatMap((m) => m.races.map((r) => r.id)),
    );
    for (const id of firstPage) expect(poller.races().has(id)).toBe(true);
    expect(poller.races().size).toBeLessThan(allRaceIds(meetings).length);
    await clock.advance(12_000); // the first retry waits twice the interval
    await poller.stop();
    expect(pages()).toEqual([
      '2025-11-21@0',
      '2025-11-22@0',
      '2025-11-22@200',
      '2025-11-23@0',
      '2025-11-22@0',
      '2025-11-22@200',
    ]);
    expect([...poller.races().keys()].sort()).toEqual(allRaceIds(meetings));
  });

  it('moves its days on at midnight UTC: the new tomorrow is listed at once, the settled day that rolled out is dropped', async () => {
    const late = Date.parse('2025-11-22T23:59:00Z');
    const meetings = [
      ...realDay('2025-11-21', 5, () => 'Final'),
      ...realDay('2025-11-22', 5, () => 'Final'),
      ...realDay('2025-11-23', 5, () => 'Open'),
      ...realDay('2025-11-24', 5, () => 'Open'),
    ];
    const { clock, poller, pages } = setup(meetings);
    await clock.advance(late - T);
    poller.start();
    await clock.advance(2 * MIN);
    await poller.stop();
    expect(pages().slice(0, 3)).toEqual(['2025-11-21@0', '2025-11-22@0', '2025-11-23@0']);
    expect(pages()).toContain('2025-11-24@0');
    const dates = new Set([...poller.races().values()].map((r) => r.raceId.slice(0, 10)));
    expect(dates).toEqual(new Set(['2025-11-22', '2025-11-23', '2025-11-24']));
  });
});
