/**
 * A new leader's first discovery (issue 27's takeover starvation, as the nemesis caught it: seed 2322112446).
 * A fresh poller knows no race until discovery lists its day, and the races at their jump late in the UTC day
 * are in the last day listed (tomorrow's, by the New Zealand racing day). Each listed page was handed to the
 * meeting pipeline before the next day was asked for, and that pipeline's first sight of a day reads every
 * meeting's head from the log: on a loaded machine ~14 s a day, while the other worker spent the budget on
 * yesterday's Final races; the races at their jump were first fetched at requests 31-52 of the takeover.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse, Meeting, MeetingsResponse } from '../../src/upstream/schemas.js';
import { createPoller, type HandedOver } from '../../src/watch/fetch/poller.js';
import { applyMeetings } from '../../src/watch/schedule/discovery.js';

const MIN = 60_000;
// Late in the UTC day: yesterday's and today's meetings are over, tomorrow's (dated the 18th) are racing.
const T0 = Date.parse('2025-07-17T23:50:00Z');
const DAYS = ['2025-07-16', '2025-07-17', '2025-07-18'];

/** `count` races of one meeting, `status`, starting `startMs` after T0 and 15 minutes apart. */
function meeting(date: string, n: number, count: number, status: string, startMs: number): Meeting {
  return {
    meeting: `${date}-m${n}`,
    name: `Meeting ${n}`,
    date: `${date}T00:00:00Z`,
    category: 'T',
    country: 'NZ',
    races: Array.from({ length: count }, (_, i) => ({
      id: `${date}-m${n}-r${i + 1}`,
      race_number: i + 1,
      name: `Race ${i + 1}`,
      start_time: new Date(T0 + startMs + i * 15 * MIN).toISOString(),
      status,
    })),
  };
}

const listing = (date: string): Meeting[] => {
  if (date === '2025-07-18') {
    // Six meetings whose first race is within 10 minutes of its jump, the rest of each card later.
    return [0, 1, 2, 3, 4, 5].map((n) => meeting(date, n, 8, 'Open', (n * 90 - 60) * 1_000));
  }
  const hoursAgo = date === '2025-07-16' ? -30 : -10;
  return [0, 1, 2, 3, 4].map((n) => meeting(date, n, 10, 'Final', hoursAgo * 60 * MIN));
};

/**
 * A new leader's first 30 s at 60 requests a minute, its meeting pipeline taking 10 s to take in each day
 * listed (the first sight of each meeting's head read from a slow log): every request, in order.
 */
async function firstRequests(handedOver?: HandedOver): Promise<string[]> {
  const clock = createManualClock(T0);
  const limiter = createRateLimiter({ maxPerMinute: 60, clock });
  const requests: string[] = [];
  const poller = createPoller({
    clock,
    logger: pino({ level: 'silent' }),
    discoveryIntervalMs: 3_000,
    subscribers: () => new Map(),
    source: {
      meetings: (query, opts) =>
        limiter.schedule(async (): Promise<MeetingsResponse> => {
          requests.push(`list ${query.dateFrom}`);
          return { header: { title: 'Race Meetings' }, data: { meetings: listing(query.dateFrom) } };
        }, opts),
      event: (id, opts) =>
        limiter.schedule(async () => {
          requests.push(id);
          return { header: { title: 'Event' }, data: {} } as unknown as EventResponse;
        }, opts),
      whenReady: (signal) => limiter.whenReady(signal),
    },
    onMeetings: () => clock.sleep(10_000),
    onEvent: async (id) => ({
      kind: 'changed',
      status: id.startsWith('2025-07-18') ? 'Open' : 'Final',
      dividends: id.startsWith('2025-07-18') ? 'none' : 'final',
    }),
    handedOver,
  });
  poller.start();
  await clock.advance(30_000);
  limiter.close();
  // A listing still being taken in finishes on the clock.
  const stopped = poller.stop();
  await clock.advance(30_000);
  await stopped;
  return requests;
}

const nearJump = listing('2025-07-18').map((m) => m.races[0]!.id);

describe('a new leader, whose meeting pipeline takes 10 s to take in each day listed', () => {
  it('lists every day before handing the meetings on: the 6 races at their jump are fetched within the first 10 requests', async () => {
    const requests = await firstRequests();
    const position = (request: string) => requests.indexOf(request) + 1;
    // The three days back to back: between two pages a worker may take one slot for a race already known.
    expect(DAYS.map((d) => position(`list ${d}`))).toEqual([1, 2, expect.any(Number)]);
    expect(position('list 2025-07-18')).toBeLessThanOrEqual(4);
    // Then the six, before any other race (scheduler.ts: a race near its jump with no document goes first);
    // handed on page by page, they went out at requests 24-29.
    expect(Math.max(...nearJump.map(position))).toBeLessThanOrEqual(10);
  });

  // Fetched, and in the second case no document in the log now (a wiped store lost them since: not
  // `lastGoodAt`, their data is gone), still handed over.
  it.each([
    ['told that its predecessor fetched three of them 2-6 s ago', true],
    ['told the same of three whose documents a wiped store lost since', false],
  ])('%s, fetches the other three first, then those three, oldest first', async (_, documentsKept) => {
    const handed = nearJump.filter((_, i) => i % 2 === 0);
    const ages = new Map(handed.map((id, i) => [id, T0 - 2_000 * (i + 1)]));
    const requests = await firstRequests({
      fetchedBefore: documentsKept ? ages : new Map(),
      fetchedLately: ages,
      races: new Map(),
      days: [],
    });
    // The race fetches once tomorrow is listed.
    const races = requests.slice(requests.indexOf('list 2025-07-18')).filter((r) => !r.startsWith('list '));
    const others = nearJump.filter((id) => !handed.includes(id));
    // A term that knew nothing fetched the same first races again after every hand-over, and with hand-overs
    // every few seconds the rest waited (the nemesis at load 15: handed-over.ts).
    expect(races.slice(0, 3).sort()).toEqual(others.sort());
    // Each still gets its first fetch of the term at once: the one fetched 6 s ago, then 4 s, then 2 s.
    expect(races.slice(3, 6)).toEqual([...handed].reverse());
  });

  it("started with its predecessor's races and listed days, fetches the 6 first and lists only the day due", async () => {
    // The leader listed all three days 1 s before the hand-over (its meeting documents and published days).
    const meetings = DAYS.map((date) => ({ date, meetings: listing(date) }));
    const races = applyMeetings(
      new Map(),
      meetings.flatMap((d) => d.meetings),
      T0 - 60_000,
    ).races;
    const requests = await firstRequests({
      fetchedBefore: new Map(),
      fetchedLately: new Map(),
      races,
      days: meetings.map(({ date, meetings: m }) => ({
        date,
        refreshedAt: T0 - 1_000,
        raceIds: m.flatMap((x) => x.races.map((r) => r.id)),
        // Yesterday's and today's races were all Final when listed.
        listedSettled: date !== '2025-07-18',
      })),
      discoveredAt: T0 - 1_000,
    });
    const position = (request: string) => requests.indexOf(request) + 1;
    // Listing every day first cost each term 3-4 requests before any race near its jump; with hand-overs
    // every few seconds after a wipe, 18 of the first 38 requests were listings (seed 261368).
    // And the listing of tomorrow, due 2 s in, waits for them (one more interval at most: scheduler.ts).
    expect(Math.max(...nearJump.map(position))).toBe(nearJump.length);
    // Yesterday and today are settled: never listed again. Tomorrow is live: listed every 3 s from its last.
    expect(requests.filter((r) => r === 'list 2025-07-16' || r === 'list 2025-07-17')).toEqual([]);
    expect(position('list 2025-07-18')).toBeGreaterThan(0);
  });
});
