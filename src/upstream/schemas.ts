/**
 * Runtime schemas for what the racing API returns: lenient by design.
 *
 * - Unknown members are kept (`z.looseObject`) so they reach clients as data, and never fail validation:
 *   the spec says consumers must ignore unknown fields.
 * - Only the members racewire relies on are required here. The full list of members the spec marks as
 *   required is checked by `spec-schemas.ts`, which tests run against the real fixtures and the simulator.
 * - Enumerations the real API is loose about (race status, country, product names) are plain strings:
 *   an unknown value is data, not a crash. The known values are exported for typing and docs.
 */
import { z } from 'zod';
import { withRacingCode } from './racing-code.js';
import { type RowRule, screenRows } from './row-screen.js';

export { RACING_CODES, type RacingCode, racingCode } from './racing-code.js';
export type { DroppedRow } from './row-screen.js';

/** Race statuses seen in the spec (`Upcoming`) or in the real data (`Open`, `Closed`, ...). */
export const KNOWN_RACE_STATUSES = ['Open', 'Upcoming', 'Closed', 'Interim', 'Final', 'Abandoned'] as const;
export type KnownRaceStatus = (typeof KNOWN_RACE_STATUSES)[number];
/** Any status string; unknown ones are kept as they are. */
export type RaceStatus = KnownRaceStatus | (string & {});

const nullableNumber = z.number().nullable().optional();

export const headerSchema = z.looseObject({
  title: z.string(),
  generated_time: z.string().optional(),
  url: z.string().optional(),
});

const droppedRowSchema = z.object({ path: z.string(), code: z.literal('bad_row'), reason: z.string() });

/**
 * Wraps a `data` schema in the response envelope every operation shares. `droppedRows` is racewire's own:
 * the rows `screenRows` removed before validation (see row-screen.ts), absent when none.
 */
export function envelopeSchema<D extends z.ZodType>(data: D) {
  return z.looseObject({
    header: headerSchema,
    params: z.record(z.string(), z.unknown()).optional(),
    data,
    droppedRows: z.array(droppedRowSchema).optional(),
  });
}

/** The envelope around `data`, with the rows of `rules` screened one by one first. */
const screenedEnvelope = <D extends z.ZodType>(data: D, rules: readonly RowRule[]) =>
  z.preprocess((payload) => screenRows(payload, rules), envelopeSchema(data));

/**
 * A list at a path `screenedEnvelope` screens with `row`: it must still be a list, but its rows are what `row`
 * already answered for each one kept (`screenRows`), so they are not validated (and copied) a second time.
 * That second pass was a third of the client's validation of a ~200 KB /events payload (docs/benchmarks.md).
 * Only for a schema whose rule screens this exact path.
 */
const screenedList = <S extends z.ZodType>(_row: S) => z.array(z.custom<z.output<S>>(() => true));

// ---- /meetings and /meetings/{id} -------------------------------------------------------------

export const raceSummarySchema = z.looseObject({
  id: z.string().min(1),
  race_number: z.number().int(),
  name: z.string(),
  start_time: z.string(),
  distance: z.number().optional(),
  status: z.string(),
  track_condition: z.string().nullable().optional(),
  weather: z.string().nullable().optional(),
  country: z.string().optional(),
  state: z.string().optional(),
  tote_start_time: z.string().optional(),
});

export const meetingSchema = z
  .looseObject({
    meeting: z.string().min(1),
    name: z.string(),
    date: z.string(),
    track_condition: z.string().nullable().optional(),
    /** Normalised to `T`, `H` or `G` (racing-code.ts); another spelling is kept as `category_upstream`. */
    category: z.string(),
    category_name: z.string().optional(),
    country: z.string(),
    state: z.string().optional(),
    races: z.array(raceSummarySchema),
  })
  .transform((m) => withRacingCode(m, 'category'));

/** A bad race summary is dropped from its meeting, a bad meeting from the list; the rest is used. */
export const meetingsResponseSchema = screenedEnvelope(
  z.looseObject({ meetings: screenedList(meetingSchema) }),
  [
    { path: ['data', 'meetings', '*', 'races'], schema: raceSummarySchema },
    { path: ['data', 'meetings'], schema: meetingSchema },
  ],
);

// ---- /races/{id} (shape A) ----------------------------------------------------------------------

export const runnerASchema = z.looseObject({
  runner_number: z.number().int(),
  horse_name: z.string(),
  barrier: z.number().int(),
  scratched: z.boolean(),
  fixed_odds: z.looseObject({ win: nullableNumber, place: nullableNumber }).nullable().optional(),
});

export const resultASchema = z.looseObject({
  runner_number: z.number().int(),
  finish_position: z.number().int(),
  margin: z.number().nullable().optional(),
  time: z.number().nullable().optional(),
});

export const raceASchema = z.looseObject({
  id: z.string().min(1),
  race_number: z.number().int(),
  name: z.string(),
  start_time: z.string(),
  status: z.string(),
  runners: z.array(runnerASchema).nullable().optional(),
  results: z.array(resultASchema).nullable().optional(),
});

export const racesResponseSchema = envelopeSchema(z.looseObject({ races: z.array(raceASchema) }));

// ---- /events/{id} (shape B) ---------------------------------------------------------------------

export const oddsSchema = z
  .looseObject({
    fixed_win: nullableNumber,
    fixed_place: nullableNumber,
    pool_win: nullableNumber,
    pool_place: nullableNumber,
  })
  .nullable();

export const runnerBSchema = z.looseObject({
  entrant_id: z.string().min(1),
  name: z.string(),
  runner_number: z.number().int(),
  barrier: z.number().int(),
  is_scratched: z.boolean(),
  scratch_time: z.number().nullable().optional(),
  is_late_scratched: z.boolean().nullable().optional(),
  odds: oddsSchema.optional(),
  favourite: z.boolean().optional(),
  mover: z.boolean().optional(),
});

export const resultBSchema = z.looseObject({
  position: z.number().int(),
  name: z.string(),
  runner_number: z.number().int(),
  entrant_id: z.string().min(1),
  margin_length: z.number().nullable().optional(),
  positional_margin: z.string().nullable().optional(),
});

export const dividendSchema = z.looseObject({
  id: z.string().min(1),
  product_name: z.string(),
  status: z.string(),
  dividend: z.number(),
  tote: z.string().optional(),
  pool_size: z.number().nullable().optional(),
  positions: z
    .array(z.looseObject({ runner_number: z.number().int(), position: z.number().int() }))
    .nullable()
    .optional(),
});

export const totePoolSchema = z.looseObject({
  product_type: z.string().min(1),
  total: z.number(),
  status: z.string(),
});

/**
 * An entrant id in a bet: the real API sends a uuid string, the official description types it as an array
 * of integers (the uuid's 16 bytes, as the simulator sends it). Both are accepted; detect-context.ts
 * `entrantIdOf` reads either.
 */
const betEntrantId = z
  .union([z.string(), z.array(z.number().int())])
  .nullable()
  .optional();

/**
 * The race of a bet leg. On a multi-leg pool bet (a Pool Quadrella) upstream gives `race_number` 0 and
 * `race_name` "": the leg's race is unknown, which is data, not an error.
 */
export const betLegRaceSchema = z.looseObject({
  meeting_name: z.string().nullable().optional(),
  race_name: z.string().nullable().optional(),
  race_number: z.number().int().min(0).nullable().optional(),
  product_type_name: z.string().nullable().optional(),
  entrant_id: betEntrantId,
  entrant_name: z.string().nullable().optional(),
  entrant_number: z.number().int().nullable().optional(),
});

export const betSelectionSchema = z.looseObject({
  position: z.number().int(),
  entrants: z
    .array(
      z.looseObject({
        entrant_id: betEntrantId,
        entrant_name: z.string().nullable().optional(),
        entrant_number: z.number().int().nullable().optional(),
      }),
    )
    .nullable(),
});

/** A bet leg; `selections` is null on the real singles (the entrant is on the leg's race). */
export const betLegSchema = z.looseObject({
  race: betLegRaceSchema.nullable().optional(),
  selections: z.array(betSelectionSchema).nullable().optional(),
});

/** A bet of `big_bets` / `live_bets`. Its `title` is any product name (`Fixed Win`, `Top 3`, `Multi`, ...). */
export const betSchema = z.looseObject({
  title: z.string(),
  description: z.array(z.string()).nullable().optional(),
  stake: z.number(),
  legs: z.array(betLegSchema).nullable(),
  place_time: z.string(),
  place_odds: z.number().nullable().optional(),
});

export const raceBSchema = z
  .looseObject({
    event_id: z.string().min(1),
    meeting_id: z.string().min(1),
    meeting_name: z.string(),
    status: z.string(),
    description: z.string(),
    race_number: z.number().int(),
    advertised_start: z.number(),
    actual_start: z.number().nullable().optional(),
    type: z.string().optional(),
    country: z.string().optional(),
    track_condition: z.string().nullable().optional(),
    distance: z.number().optional(),
  })
  .transform((race) => withRacingCode(race, 'type'));

export const eventDataSchema = z.looseObject({
  race: raceBSchema,
  runners: z.array(runnerBSchema).nullable(),
  results: z.array(resultBSchema).nullable().optional(),
  dividends: z.array(dividendSchema).nullable().optional(),
  tote_pools: z.array(totePoolSchema).nullable().optional(),
  favourite: z.unknown().optional(),
  mover: z.unknown().optional(),
  big_bets: z.array(betSchema).nullable().optional(),
  live_bets: z.array(betSchema).nullable().optional(),
  // Not screened (it is no list): a malformed biggest bet is ignored by detect-bets.ts, never fatal.
  biggest_bet: z.unknown().optional(),
  error: z.string().optional(),
});

/**
 * Bad runner, result, dividend, tote pool or bet rows are dropped one by one; the rest of the payload is
 * used.
 */
export const eventResponseSchema = screenedEnvelope(
  eventDataSchema.extend({
    runners: screenedList(runnerBSchema).nullable(),
    results: screenedList(resultBSchema).nullable().optional(),
    dividends: screenedList(dividendSchema).nullable().optional(),
    tote_pools: screenedList(totePoolSchema).nullable().optional(),
    big_bets: screenedList(betSchema).nullable().optional(),
    live_bets: screenedList(betSchema).nullable().optional(),
  }),
  [
    { path: ['data', 'runners'], schema: runnerBSchema },
    { path: ['data', 'results'], schema: resultBSchema },
    { path: ['data', 'dividends'], schema: dividendSchema },
    { path: ['data', 'tote_pools'], schema: totePoolSchema },
    { path: ['data', 'big_bets'], schema: betSchema },
    { path: ['data', 'live_bets'], schema: betSchema },
  ],
);

// ---- Types --------------------------------------------------------------------------------------

export type RaceSummary = z.infer<typeof raceSummarySchema>;
export type Meeting = z.infer<typeof meetingSchema>;
export type MeetingsResponse = z.infer<typeof meetingsResponseSchema>;
export type RunnerA = z.infer<typeof runnerASchema>;
export type RaceA = z.infer<typeof raceASchema>;
export type RacesResponse = z.infer<typeof racesResponseSchema>;
export type Odds = z.infer<typeof oddsSchema>;
export type RunnerB = z.infer<typeof runnerBSchema>;
export type ResultB = z.infer<typeof resultBSchema>;
export type Dividend = z.infer<typeof dividendSchema>;
export type TotePool = z.infer<typeof totePoolSchema>;
export type RaceB = z.infer<typeof raceBSchema>;
export type EventData = z.infer<typeof eventDataSchema>;
export type EventResponse = z.infer<typeof eventResponseSchema>;
