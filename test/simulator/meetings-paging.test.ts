import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { specMeetingsResponse } from '../../src/upstream/spec-schemas.js';
import { realMeetings } from './measure.js';
import { DAY, get, settableClock } from './support.js';

const NOW = Date.parse(`${DAY}T10:48:11Z`);
const RANGE = 'date_from=2026-11-21&date_to=2026-11-23';
type Listed = { meeting: string; date: string; races: { start_time: string }[] };
const firstStart = (m: Listed) => Math.min(...m.races.map((r) => Date.parse(r.start_time)));

describe('GET /meetings paging, as the official description has it', () => {
  const clock = settableClock(NOW);
  let sim: Simulator;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 6, clock, day: DAY, rateLimit: false });
  });
  afterAll(() => sim.close());

  const list = async (query: string) => (await get(sim, `/meetings?${query}`)).json();

  it('answers the request without parameters as the real one: today, limit 100, offset 0, echoed', async () => {
    const real = realMeetings();
    const body = await list('');
    expect(Object.keys(body.params)).toEqual(Object.keys(real.params));
    expect(body.params).toEqual({
      ...real.params,
      // today is now to the minute, as the real echo (2025-07-17T10:48:00Z at 10:48:11).
      date_from: `${DAY}T10:48:00Z`,
      date_to: `${DAY}T10:48:00Z`,
    });
    expect(body.header).toMatchObject({ title: real.header.title, url: real.header.url });
    expect(body.data.meetings.every((m: Listed) => m.date === `${DAY}T00:00:00Z`)).toBe(true);
    expect(body.data.meetings).toHaveLength(76);
  });

  it('returns at most 100 meetings by default, ordered by first start like the real list', async () => {
    const real = (realMeetings().data.meetings as Listed[]).map(firstStart);
    expect(real).toEqual([...real].sort((a, b) => a - b));
    const page = (await list(RANGE)).data.meetings as Listed[];
    expect(page).toHaveLength(100);
    const starts = page.map(firstStart);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect(specMeetingsResponse.safeParse(await list(RANGE)).success).toBe(true);
  });

  it('pages with limit and offset until a short page, every meeting once', async () => {
    const seen: string[] = [];
    const pages: number[] = [];
    for (let offset = 0; ; offset += 100) {
      const page = (await list(`${RANGE}&offset=${offset}`)).data.meetings as Listed[];
      pages.push(page.length);
      seen.push(...page.map((m) => m.meeting));
      if (page.length < 100) break;
    }
    expect(pages).toEqual([100, 100, 28]);
    expect(new Set(seen).size).toBe(228);
    const starts = (await list(`${RANGE}&limit=200`)).data.meetings.map(firstStart);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect((await list(`${RANGE}&offset=228`)).data.meetings).toEqual([]);
  });

  it('caps limit at 200 and echoes the limit it applied', async () => {
    const body = await list(`${RANGE}&limit=500`);
    expect(body.data.meetings).toHaveLength(200);
    expect(body.params).toMatchObject({ limit: 200, offset: 0 });
    expect((await list(`${RANGE}&limit=7&offset=3`)).params).toMatchObject({ limit: 7, offset: 3 });
  });

  it('answers 400 in the official error shape for a bad limit, offset, date or category', async () => {
    for (const q of [
      'limit=0',
      'limit=abc',
      'limit=2.5',
      'offset=-1',
      'offset=x',
      'date_from=tomorrow',
      'date_to=22/11/2026',
      'category=X',
    ]) {
      const res = await get(sim, `/meetings?${q}`);
      expect([q, res.status]).toEqual([q, 400]);
      const header = res.json().header;
      expect(Object.keys(header)).toEqual(['title', 'generated_time', 'url', 'error', 'error_code']);
      expect(header.error_code).toBe('bad_request');
    }
  });

  it('takes the date keywords the description lists: today, week, month, all', async () => {
    const week = await list('date_from=week&date_to=today&limit=200');
    // 2026-11-22 is a Sunday: the week began on Monday the 16th.
    expect(week.params).toMatchObject({ date_from: '2026-11-16T00:00:00Z', date_to: `${DAY}T10:48:00Z` });
    // The world begins the day before the configured day: yesterday and today.
    expect(week.data.meetings).toHaveLength(152);
    const month = await list('date_from=month&date_to=today&limit=200');
    expect(month.params.date_from).toBe('2026-11-01T00:00:00Z');
    expect(month.data.meetings).toHaveLength(152);
    const all = await list('date_from=all&date_to=all&limit=200');
    expect(all.params.date_from).toBe('2026-11-21T00:00:00Z');
    const rest = await list('date_from=all&date_to=all&limit=200&offset=200');
    const dates = new Set([...all.data.meetings, ...rest.data.meetings].map((m: Listed) => m.date));
    // From the first day that exists to the last with a meeting listed (45 h ahead).
    expect([...dates].sort()).toEqual(
      ['2026-11-21', '2026-11-22', '2026-11-23', '2026-11-24'].map((d) => `${d}T00:00:00Z`),
    );
    const iso = await list(`date_from=${DAY}T05:00:00Z&date_to=${DAY}T23:00:00Z&country=NZ&category=T`);
    expect(iso.params).toMatchObject({
      date_from: `${DAY}T05:00:00Z`,
      date_to: `${DAY}T23:00:00Z`,
      type: 'T',
      country: 'NZ',
    });
    expect(iso.data.meetings.length).toBeGreaterThan(0);
    for (const m of iso.data.meetings) expect([m.country, m.category]).toEqual(['NZ', 'T']);
  });

  it('filters by ids', async () => {
    const two = (await list(`${RANGE}&limit=2`)).data.meetings.map((m: Listed) => m.meeting);
    const body = await list(`${RANGE}&ids=${two.join(',')}`);
    expect(body.data.meetings.map((m: Listed) => m.meeting)).toEqual(two);
    expect(body.params.ids).toEqual(two);
  });

  it('lists tote meetings with the members the real list gives them', async () => {
    const real = realMeetings().data.meetings as Record<string, unknown>[];
    const sim = (await list(`date_from=${DAY}&date_to=${DAY}&limit=200`)).data.meetings as Record<
      string,
      unknown
    >[];
    const keysByName = (ms: Record<string, unknown>[]) =>
      new Map(ms.map((m) => [m.name as string, Object.keys(m).join(',')]));
    expect(keysByName(sim)).toEqual(keysByName(real));
    // tote_status: Closed once every race of the meeting is settled, as the real list's finished meetings.
    for (const m of sim.filter((x) => 'tote_status' in x)) {
      const settled = (m.races as { status: string }[]).every(
        (r) => r.status === 'Final' || r.status === 'Abandoned',
      );
      expect(m.tote_status).toBe(settled ? 'Closed' : 'Open');
    }
    expect(new Set(sim.map((m) => m.tote_status))).toEqual(new Set(real.map((m) => m.tote_status)));
  });
});
