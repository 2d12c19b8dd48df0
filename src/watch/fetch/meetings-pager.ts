/**
 * Every meeting of one day, page by page: /meetings returns at most `limit` meetings (default 100, at most
 * 200) from `offset`, ordered by first start, so one page is never assumed to be all. Pages are asked until
 * one comes back short; each page is one request through the limiter (the racing client's).
 *
 * Each page is judged by what it holds and what its echo says (src/upstream/echo.ts), never by an echo the
 * description does not promise:
 * - a `limit` echoed smaller than asked was clamped: the page is full at that size and the next one starts
 *   after it (later pages ask for the clamped size);
 * - a page after the first holding only meetings already read means the server ignored `offset`: paging the
 *   day stops there with an alarm (DISCOVERY_OFFSET_IGNORED), keeping what was read, instead of looping;
 * - the day is judged by the meetings' own `date` (a server may echo the asked day as an instant of another
 *   zone); a page listing a meeting of another day, or an empty page whose echo names a day more than one
 *   day away, cannot be the asked day: it is given up (WrongDayError) and the day's refresh fails.
 *
 * A meeting inserted or removed upstream between two pages shifts the offsets: one refresh can then list a
 * meeting twice (applying it twice is harmless) or miss one (the next refresh finds it; a meeting missing
 * from one list is never read as removed).
 */
import { readMeetingsEcho } from '../../upstream/echo.js';
import type { Meeting, MeetingsResponse } from '../../upstream/schemas.js';

/** The documented maximum: the fewest requests per day. */
export const DEFAULT_PAGE_SIZE = 200;
/** A day needing more pages than this (10,000 meetings at 200) is a broken upstream, not a race day. */
export const MAX_PAGES = 50;

const DAY_MS = 86_400_000;

export interface MeetingsPageQuery {
  dateFrom: string;
  dateTo: string;
  limit: number;
  offset: number;
}

export type MeetingsPageSource = (query: MeetingsPageQuery) => Promise<MeetingsResponse>;

/** Something about a day's listing an operator must see, though what was read is kept. */
export interface DiscoveryAlarm {
  code: 'DISCOVERY_OFFSET_IGNORED';
  date: string;
  message: string;
}

export class TooManyPagesError extends Error {
  readonly code = 'DISCOVERY_TOO_MANY_PAGES';
  constructor(date: string, pages: number) {
    super(`/meetings for ${date} was still returning full pages after ${pages} requests`);
    this.name = this.constructor.name;
  }
}

export class WrongDayError extends Error {
  readonly code = 'DISCOVERY_WRONG_DAY';
  constructor(date: string, offset: number, found: string) {
    super(`/meetings for ${date} at offset ${offset} answered with ${found}: it cannot be that day`);
    this.name = this.constructor.name;
  }
}

/**
 * Yields the meetings of `date`, one page at a time, until a short page (or a page of meetings already
 * read, reported to `onAlarm`); throws what a request throws, and WrongDayError for a page of another day.
 */
export async function* meetingPages(
  fetchPage: MeetingsPageSource,
  date: string,
  pageSize = DEFAULT_PAGE_SIZE,
  onAlarm: (alarm: DiscoveryAlarm) => void = () => {},
): AsyncGenerator<Meeting[]> {
  const read = new Set<string>();
  let limit = pageSize;
  let offset = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const response = await fetchPage({ dateFrom: date, dateTo: date, limit, offset });
    const meetings = response.data.meetings;
    const echo = readMeetingsEcho({ date_from: date, date_to: date, limit, offset }, response.params);
    const wrong = wrongDay(date, meetings, [echo.dateFrom, echo.dateTo]);
    if (wrong) throw new WrongDayError(date, offset, wrong);
    if (page > 0 && meetings.length > 0 && meetings.every((m) => read.has(m.meeting))) {
      onAlarm({
        code: 'DISCOVERY_OFFSET_IGNORED',
        date,
        message: `/meetings for ${date} at offset ${offset} listed only meetings already read: the server ignores offset, so the day was listed up to ${read.size} meetings and paging stopped`,
      });
      return;
    }
    for (const m of meetings) read.add(m.meeting);
    yield meetings;
    // The server says what it applied: a clamped limit makes a page of that size full.
    const applied = Math.min(limit, echo.limit ?? limit);
    // A meeting dropped as a bad row still came in this page: the page is short only if upstream sent less.
    const dropped = (response.droppedRows ?? []).filter((row) => /^data\.meetings\[\d+\]$/.test(row.path));
    if (meetings.length + dropped.length < applied) return;
    offset += applied;
    limit = applied;
  }
  throw new TooManyPagesError(date, MAX_PAGES);
}

/**
 * What makes a page not the asked day, or undefined: a meeting dated another day (each meeting's `date`
 * is its own racing day), or, with no meeting to judge by, an echoed date further than a zone can move it.
 */
function wrongDay(date: string, meetings: Meeting[], echoed: (string | undefined)[]): string | undefined {
  const other = meetings.find((m) => m.date.slice(0, 10) !== date);
  if (other) return `meeting ${other.meeting} dated ${other.date}`;
  if (meetings.length > 0) return undefined;
  const asked = Date.parse(`${date}T00:00:00Z`);
  for (const value of echoed) {
    const day = value === undefined ? Number.NaN : Date.parse(`${value.slice(0, 10)}T00:00:00Z`);
    if (Number.isFinite(day) && Math.abs(day - asked) > DAY_MS) return `an echo of ${value}`;
  }
  return undefined;
}
