/**
 * A fake `fetch` serving /meetings as the official description has it: `limit` default 100 and at most 200
 * (400 above), `offset` default 0, meetings dated within `date_from`..`date_to`, ordered by first start, and
 * the real list's `params` echo. Days are built from the real list of 2025-07-17 (re-dated, ids made
 * unique), so their sizes and shapes are real ones. Every request is recorded.
 */
import { readFileSync } from 'node:fs';
import type { Meeting } from '../../src/upstream/schemas.js';
import type { FetchLike } from '../../src/upstream/transport.js';

const real = JSON.parse(
  readFileSync(new URL('../fixtures/real/meetings-day.json', import.meta.url), 'utf8'),
) as { data: { meetings: Meeting[] } };

const DAY = 86_400_000;
const REAL_DATE = Date.parse('2025-07-17T00:00:00Z');

/**
 * `count` meetings dated `date` (YYYY-MM-DD): the real day's meetings in turn from the `from`-th (in order
 * of first start; repeated past the last with new ids), moved by whole days, each race given `status(start)`.
 */
export function realDay(
  date: string,
  count: number,
  status: (startMs: number) => string,
  from = 0,
): Meeting[] {
  const shift = Date.parse(`${date}T00:00:00Z`) - REAL_DATE;
  const base = real.data.meetings;
  return Array.from({ length: count }, (_, n) => {
    const i = n + from;
    const m = base[i % base.length] as Meeting;
    const copy = Math.floor(i / base.length);
    const id = (value: string) => `${date}-${copy}-${value}`;
    return {
      ...m,
      meeting: id(m.meeting),
      date: `${date}T00:00:00Z`,
      races: m.races.map((r) => {
        const start = Date.parse(r.start_time) + shift;
        return { ...r, id: id(r.id), start_time: new Date(start).toISOString(), status: status(start) };
      }),
    };
  });
}

const firstStart = (m: Meeting) => Math.min(...m.races.map((r) => Date.parse(r.start_time)));

/** `failOnce` answers 500 to the first request for that page (`date@offset`). */
export function createPagingUpstream(meetings: Meeting[], failOnce?: string) {
  const requests: { path: string; query: Record<string, string> }[] = [];
  let failed = false;
  const sorted = [...meetings].sort((a, b) => firstStart(a) - firstStart(b));
  const json = (status: number, body: unknown) =>
    new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

  const fetch: FetchLike = async (url) => {
    const u = new URL(url);
    const path = u.pathname.replace('/affiliates/v1/racing', '');
    const query = Object.fromEntries(u.searchParams);
    requests.push({ path, query });
    if (path !== '/meetings') return json(404, { error: 'not_found', message: `no route ${path}` });
    if (!failed && failOnce === `${query.date_from}@${query.offset}`) {
      failed = true;
      return json(500, { error: 'internal_error', message: 'injected' });
    }
    const limit = query.limit === undefined ? 100 : Number(query.limit);
    const offset = query.offset === undefined ? 0 : Number(query.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      return json(400, { error: 'bad_request', message: 'limit must be from 1 to 200' });
    }
    const from = Date.parse(`${query.date_from}T00:00:00Z`);
    const to = Date.parse(`${query.date_to}T00:00:00Z`);
    const selected = sorted.filter((m) => {
      const date = Date.parse(m.date);
      return date >= from && date <= to + DAY - 1;
    });
    return json(200, {
      header: {
        title: 'Race Meetings',
        generated_time: '2025-11-22T12:00:00.000000000Z',
        url: '/affiliates/v1/racing/meetings',
      },
      params: {
        enc: 'json',
        ids: null,
        date_from: `${query.date_from}T00:00:00Z`,
        date_to: `${query.date_to}T00:00:00Z`,
        type: ' ',
        country: ' ',
        limit,
        offset,
        futures: false,
        meeting_numbers: null,
      },
      data: { meetings: selected.slice(offset, offset + limit) },
    });
  };
  return { fetch, requests };
}
