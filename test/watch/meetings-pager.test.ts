import { describe, expect, it } from 'vitest';
import type { Meeting, MeetingsResponse } from '../../src/upstream/schemas.js';
import {
  MAX_PAGES,
  type MeetingsPageQuery,
  meetingPages,
  TooManyPagesError,
} from '../../src/watch/meetings-pager.js';

const page = (n: number): MeetingsResponse => ({
  header: { title: 'Race Meetings' },
  data: { meetings: Array.from({ length: n }, (_, i) => ({ meeting: `m${i}` }) as Meeting) },
});

describe('meeting pages', () => {
  it('gives up with a clear error on an upstream that never sends a short page', async () => {
    const asked: MeetingsPageQuery[] = [];
    const pages = meetingPages(
      async (query) => {
        asked.push(query);
        return page(query.limit);
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
        if (query.offset > 0) return page(1);
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
});
