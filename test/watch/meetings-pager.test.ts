import { describe, expect, it } from 'vitest';
import type { Meeting, MeetingsResponse } from '../../src/upstream/schemas.js';
import {
  MAX_PAGES,
  type MeetingsPageQuery,
  meetingPages,
  TooManyPagesError,
  WrongDayError,
} from '../../src/watch/fetch/meetings-pager.js';

const DATE = '2025-11-22';

/** `n` meetings of DATE, numbered from `offset`. */
const page = (n: number, offset = 0): MeetingsResponse => ({
  header: { title: 'Race Meetings' },
  data: {
    meetings: Array.from(
      { length: n },
      (_, i) => ({ meeting: `m${offset + i}`, date: `${DATE}T00:00:00Z` }) as Meeting,
    ),
  },
});

describe('meeting pages', () => {
  it('gives up with a clear error on an upstream that never sends a short page', async () => {
    const asked: MeetingsPageQuery[] = [];
    const pages = meetingPages(
      async (query) => {
        asked.push(query);
        return page(query.limit, query.offset);
      },
      '2025-11-22',
      2,
    );
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const meetings of pages) seen.push(meetings.length);
      })(),
    ).rejects.toThrow(new TooManyPagesError('2025-11-22', MAX_PAGES));
    expect(asked).toHaveLength(MAX_PAGES);
    expect(asked.at(-1)).toEqual({ dateFrom: '2025-11-22', dateTo: '2025-11-22', limit: 2, offset: 98 });
    expect(seen).toEqual(Array(MAX_PAGES).fill(2));
  });

  it('asks for the next page when a full page had a meeting dropped as a bad row', async () => {
    const asked: number[] = [];
    const pages = meetingPages(
      async (query) => {
        asked.push(query.offset);
        if (query.offset > 0) return page(1, query.offset);
        return {
          ...page(query.limit - 1),
          droppedRows: [{ path: 'data.meetings[0]', code: 'bad_row', reason: 'name: expected string' }],
        };
      },
      '2025-11-22',
      3,
    );
    const seen: number[] = [];
    for await (const meetings of pages) seen.push(meetings.length);
    expect(asked).toEqual([0, 3]);
    expect(seen).toEqual([2, 1]);
  });

  it('judges an empty page by its echo: another zone’s instant is the day, a date further away is not', async () => {
    const empty = (date_from: string): MeetingsResponse => ({
      ...page(0),
      params: { enc: 'json', date_from, date_to: date_from },
    });
    const list = async (echo: string) => {
      const seen: number[] = [];
      for await (const meetings of meetingPages(async () => empty(echo), DATE)) seen.push(meetings.length);
      return seen;
    };
    // New Zealand midnight of DATE is 11:00 UTC the day before.
    expect(await list('2025-11-21T11:00:00Z')).toEqual([0]);
    expect(await list('2025-11-23T00:00:00Z')).toEqual([0]);
    await expect(list('2025-11-20T00:00:00Z')).rejects.toThrow(
      new WrongDayError(DATE, 0, 'an echo of 2025-11-20T00:00:00Z'),
    );
  });

  it('gives up on a page listing a meeting of another day, whatever its echo says', async () => {
    const pages = meetingPages(async () => {
      const response = page(3);
      (response.data.meetings[1] as Meeting).date = '2025-11-23T00:00:00Z';
      return response;
    }, DATE);
    await expect(pages.next()).rejects.toMatchObject({
      code: 'DISCOVERY_WRONG_DAY',
      message:
        '/meetings for 2025-11-22 at offset 0 answered with meeting m1 dated 2025-11-23T00:00:00Z: it cannot be that day',
    });
  });
});
