/**
 * The /meetings echo cases against the simulator, one fault each, through the real client in-process on a
 * manual clock: an echo leaving members out, a clamped limit, an ignored offset, dates echoed in another
 * zone, and a response of another day (src/upstream/echo.ts, src/watch/fetch/meetings-pager.ts).
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import type { FaultKind } from '../../src/simulator/faults.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { CLAMPED_LIMIT } from '../../src/simulator/meetings-query.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import { type DiscoveryAlarm, meetingPages, WrongDayError } from '../../src/watch/fetch/meetings-pager.js';

const NOW = Date.parse('2026-11-22T09:00:00Z');
const TODAY = '2026-11-22';
const EVERY_REQUEST = 1_000;

let sim: Simulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function setup(fault?: FaultKind) {
  const clock = createManualClock(NOW);
  sim = await createSimulator({ seed: 3, clock, rateLimit: false });
  if (fault) sim.faults.inject({ kind: fault, count: EVERY_REQUEST, path: /\/meetings$/ });
  const asked: string[] = [];
  const inProcess = createInProcessFetch(sim, (url) => {
    if (url.pathname.endsWith('/meetings'))
      asked.push(`${url.searchParams.get('offset')}+${url.searchParams.get('limit')}`);
  });
  const logs: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => logs.push(JSON.parse(line)) });
  const omitted: string[][] = [];
  const client = createRacingClient({
    baseUrl: 'http://sim.test/affiliates/v1/racing',
    limiter: createRateLimiter({ maxPerMinute: 1000, clock }),
    clock,
    fetch: inProcess.fetch,
    logger,
    onEchoOmitted: (members) => omitted.push(members),
  });
  const world = sim.world;
  const listedOn = (date: string) =>
    world.meetings
      .filter((m) => new Date(m.date).toISOString().slice(0, 10) === date && world.listed(m, NOW))
      .map((m) => m.id)
      .sort();
  /** Every page of `date`, the alarms raised, and what was asked (`offset+limit`). */
  const list = async (date: string, pageSize: number) => {
    const pages: string[][] = [];
    const alarms: DiscoveryAlarm[] = [];
    for await (const page of meetingPages(
      (query) => client.meetings(query),
      date,
      pageSize,
      (alarm) => alarms.push(alarm),
    )) {
      pages.push(page.map((m) => m.meeting));
    }
    return { pages, alarms };
  };
  return { list, asked, logs, omitted, listedOn };
}

describe('discovery against the simulator’s /meetings echo faults', () => {
  it('accepts an echo of only enc, date_from and date_to, logs it once and reports each omission', async () => {
    const { list, asked, logs, omitted, listedOn } = await setup('echo_minimal');
    const today = await list(TODAY, 200);
    const tomorrow = await list('2026-11-23', 200);
    expect(today.pages.flat().sort()).toEqual(listedOn(TODAY));
    expect(tomorrow.pages.flat().sort()).toEqual(listedOn('2026-11-23'));
    expect(listedOn(TODAY)).toHaveLength(76);
    expect(asked).toEqual(['0+200', '0+200']);
    const members = ['type', 'country', 'ids', 'limit', 'offset', 'futures', 'meeting_numbers'];
    expect(omitted).toEqual([members, members]);
    const notes = logs.filter((l) => Array.isArray(l.omitted));
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatchObject({ level: 30, path: '/meetings', omitted: members });
    expect(logs.filter((l) => l.code === 'UPSTREAM_PARAMS_MISMATCH')).toEqual([]);
  });

  it('pages by a clamped limit as the echo says, finding every meeting', async () => {
    const { list, asked, listedOn } = await setup('limit_clamped');
    const { pages, alarms } = await list(TODAY, 200);
    expect(CLAMPED_LIMIT).toBe(30);
    expect(asked).toEqual(['0+200', '30+30', '60+30']);
    expect(pages.map((p) => p.length)).toEqual([30, 30, 16]);
    expect(pages.flat().sort()).toEqual(listedOn(TODAY));
    expect(alarms).toEqual([]);
  });

  it('stops paging with an alarm when offset is ignored, keeping the page it read', async () => {
    const { list, asked, listedOn } = await setup('offset_ignored');
    const { pages, alarms } = await list(TODAY, 50);
    expect(asked).toEqual(['0+50', '50+50']);
    expect(pages).toHaveLength(1);
    expect(pages[0]).toHaveLength(50);
    for (const id of pages[0] ?? []) expect(listedOn(TODAY)).toContain(id);
    expect(alarms).toEqual([
      {
        code: 'DISCOVERY_OFFSET_IGNORED',
        date: TODAY,
        message: `/meetings for ${TODAY} at offset 50 listed only meetings already read: the server ignores offset, so the day was listed up to 50 meetings and paging stopped`,
      },
    ]);
  });

  it('judges dates echoed in another zone by the meetings’ own dates', async () => {
    const { list, asked, listedOn } = await setup('date_other_zone');
    const { pages, alarms } = await list(TODAY, 200);
    expect(asked).toEqual(['0+200']);
    expect(pages.flat().sort()).toEqual(listedOn(TODAY));
    expect(alarms).toEqual([]);
  });

  it('gives up on a page of another day with DISCOVERY_WRONG_DAY, naming the meeting', async () => {
    const { list, asked, listedOn } = await setup('wrong_day');
    const error = await list(TODAY, 200).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(WrongDayError);
    expect(listedOn('2026-11-23').length).toBeGreaterThan(0);
    expect(error).toMatchObject({ code: 'DISCOVERY_WRONG_DAY' });
    expect((error as Error).message).toMatch(
      /^\/meetings for 2026-11-22 at offset 0 answered with meeting \S+ dated 2026-11-23T00:00:00Z: it cannot be that day$/,
    );
    expect(asked).toEqual(['0+200']);
  });
});
