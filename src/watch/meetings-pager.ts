/**
 * Every meeting of one day, page by page: /meetings returns at most `limit` meetings (default 100, at most
 * 200) from `offset`, ordered by first start, so one page is never assumed to be all. Pages are asked until
 * one comes back short; each page is one request through the limiter (the racing client's), and the client
 * refuses a page whose echoed `params` do not match what was asked (UPSTREAM_PARAMS_MISMATCH).
 *
 * A meeting inserted or removed upstream between two pages shifts the offsets: one refresh can then list a
 * meeting twice (applying it twice is harmless) or miss one (the next refresh finds it; a meeting missing
 * from one list is never read as removed).
 */
import type { Meeting, MeetingsResponse } from '../upstream/schemas.js';

/** The documented maximum: the fewest requests per day. */
export const DEFAULT_PAGE_SIZE = 200;
/** A day needing more pages than this (10,000 meetings at 200) is a broken upstream, not a race day. */
export const MAX_PAGES = 50;

export interface MeetingsPageQuery {
  dateFrom: string;
  dateTo: string;
  limit: number;
  offset: number;
}

export type MeetingsPageSource = (query: MeetingsPageQuery) => Promise<MeetingsResponse>;

export class TooManyPagesError extends Error {
  readonly code = 'DISCOVERY_TOO_MANY_PAGES';
  constructor(date: string, pages: number) {
    super(`/meetings for ${date} was still returning full pages after ${pages} requests`);
    this.name = this.constructor.name;
  }
}

/** Yields the meetings of `date`, one page at a time, until a short page; throws what a request throws. */
export async function* meetingPages(
  fetchPage: MeetingsPageSource,
  date: string,
  pageSize = DEFAULT_PAGE_SIZE,
): AsyncGenerator<Meeting[]> {
  for (let page = 0; page < MAX_PAGES; page++) {
    const response = await fetchPage({
      dateFrom: date,
      dateTo: date,
      limit: pageSize,
      offset: page * pageSize,
    });
    const meetings = response.data.meetings;
    yield meetings;
    // A meeting dropped as a bad row still came in this page: the page is short only if upstream sent less.
    const dropped = (response.droppedRows ?? []).filter((row) => /^data\.meetings\[\d+\]$/.test(row.path));
    if (meetings.length + dropped.length < pageSize) return;
  }
  throw new TooManyPagesError(date, MAX_PAGES);
}
