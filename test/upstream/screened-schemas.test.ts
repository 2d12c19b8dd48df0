/**
 * The response schemas validate a screened row once (schemas.ts `screenedList`): what they answer must be
 * exactly what validating it twice answered (the rows screened, then the whole envelope with the row
 * schemas again), for good payloads and for payloads with broken rows, members and lists.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { screenRows } from '../../src/upstream/row-screen.js';
import {
  betSchema,
  dividendSchema,
  envelopeSchema,
  eventDataSchema,
  eventResponseSchema,
  meetingSchema,
  meetingsResponseSchema,
  raceSummarySchema,
  resultBSchema,
  runnerBSchema,
  totePoolSchema,
} from '../../src/upstream/schemas.js';

const read = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/real/${name}`, import.meta.url), 'utf8')) as Record<
    string,
    unknown
  >;
const EVENT = read('event-final-awapuni.json');
const DAY = read('meetings-day.json') as { data: { meetings: unknown[] } };
// Four meetings of the real day: every case validates the payload twice over, on a busy machine.
const MEETINGS = { ...DAY, data: { ...DAY.data, meetings: DAY.data.meetings.slice(0, 4) } };

// The schemas as they were: every row validated by its rule, then again inside the envelope. The rules are a copy
// on purpose: an independent statement of which rows are screened, so a rule dropped from schemas.ts is caught.
const EVENT_RULES = [
  { path: ['data', 'runners'], schema: runnerBSchema },
  { path: ['data', 'results'], schema: resultBSchema },
  { path: ['data', 'dividends'], schema: dividendSchema },
  { path: ['data', 'tote_pools'], schema: totePoolSchema },
  { path: ['data', 'big_bets'], schema: betSchema },
  { path: ['data', 'live_bets'], schema: betSchema },
];
const twiceEvent = z.preprocess((p) => screenRows(p, EVENT_RULES), envelopeSchema(eventDataSchema));
const twiceMeetings = z.preprocess(
  (p) =>
    screenRows(p, [
      { path: ['data', 'meetings', '*', 'races'], schema: raceSummarySchema },
      { path: ['data', 'meetings'], schema: meetingSchema },
    ]),
  envelopeSchema(z.looseObject({ meetings: z.array(meetingSchema) })),
);

const same = (once: z.ZodType, twice: z.ZodType, payload: unknown) => {
  const a = once.safeParse(structuredClone(payload));
  const b = twice.safeParse(structuredClone(payload));
  expect(a.success).toBe(b.success);
  if (a.success && b.success) expect(a.data).toEqual(b.data);
  else if (!a.success && !b.success) expect(a.error.issues).toEqual(b.error.issues);
};

type Doc = Record<string, unknown>;
const LISTS = ['runners', 'results', 'dividends', 'tote_pools', 'big_bets', 'live_bets'] as const;
// What a bad upstream does to a row or a list: a member removed, of the wrong type, null, or the whole thing.
const BREAKS: Array<unknown> = [undefined, null, 'x', 2, [], {}, true];

describe('screened lists are validated once', () => {
  it('the real event and meetings payloads come out as they did', () => {
    same(eventResponseSchema, twiceEvent, EVENT);
    same(meetingsResponseSchema, twiceMeetings, DAY);
    expect(eventResponseSchema.parse(structuredClone(EVENT)).data.runners).toHaveLength(8);
  });

  it('a broken row is still dropped, and a list that is no list still fails the payload', () => {
    const bad = structuredClone(EVENT) as { data: Doc };
    (bad.data.runners as Doc[])[2]!.runner_number = 'two';
    const parsed = eventResponseSchema.parse(structuredClone(bad));
    expect(parsed.data.runners).toHaveLength(7);
    expect(parsed.droppedRows?.map((d) => d.path)).toEqual(['data.runners[2]']);
    same(eventResponseSchema, twiceEvent, bad);
    bad.data.results = 'none';
    expect(eventResponseSchema.safeParse(structuredClone(bad)).success).toBe(false);
    same(eventResponseSchema, twiceEvent, bad);
  });

  it('any member of any row, or any list, broken any way: the same answer as validating twice', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...LISTS),
        fc.nat(20),
        fc.nat(40),
        fc.constantFrom(...BREAKS),
        fc.boolean(),
        (list, rowAt, memberAt, value, wholeList) => {
          const doc = structuredClone(EVENT) as { data: Doc };
          const rows = doc.data[list];
          if (wholeList || !Array.isArray(rows) || rows.length === 0) {
            if (value === undefined) delete doc.data[list];
            else doc.data[list] = value;
          } else {
            const row = rows[rowAt % rows.length] as Doc;
            const keys = Object.keys(row);
            const key = keys[memberAt % keys.length]!;
            if (value === undefined) delete row[key];
            else row[key] = value;
          }
          same(eventResponseSchema, twiceEvent, doc);
        },
      ),
      { numRuns: 80 },
    );
  }, 60_000);

  it('a meeting or race summary broken any way: the same answer as validating twice', () => {
    fc.assert(
      fc.property(fc.nat(3), fc.nat(40), fc.nat(30), fc.constantFrom(...BREAKS), (m, r, k, value) => {
        const doc = structuredClone(MEETINGS) as { data: { meetings: Doc[] } };
        const meeting = doc.data.meetings[m % doc.data.meetings.length]!;
        const races = meeting.races as Doc[];
        const target = r % 3 === 0 || races.length === 0 ? meeting : races[r % races.length]!;
        const keys = Object.keys(target);
        const key = keys[k % keys.length]!;
        if (value === undefined) delete target[key];
        else target[key] = value;
        same(meetingsResponseSchema, twiceMeetings, doc);
      }),
      { numRuns: 100 },
    );
  }, 60_000);
});
