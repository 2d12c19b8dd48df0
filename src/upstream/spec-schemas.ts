/**
 * Strict-on-presence schemas from the spec (racing-api.md): every member the spec marks required, with its
 * type, for every operation. Unknown members are allowed (consumers must ignore them). Used by tests to check
 * that the real fixtures and every simulator payload honour the contract; the runtime uses the lenient
 * schemas in schemas.ts.
 */
import { z } from 'zod';

const int = z.number().int();
const str = z.string();
const num = z.number();
const obj = z.looseObject;

/** ISO 8601 UTC datetime with up to nanosecond precision, as the real `generated_time`. */
const isoDateTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/);

export const specHeader = obj({ title: str, generated_time: isoDateTime, url: str.optional() });

export function specEnvelope<D extends z.ZodType>(data: D, paramsRequired = true) {
  const params = z.record(z.string(), z.unknown());
  return obj({ header: specHeader, params: paramsRequired ? params : params.optional(), data });
}

export const specRaceSummary = obj({
  id: str,
  race_number: int.positive(),
  name: str,
  start_time: str,
  distance: int.nonnegative(),
  status: str,
  track_condition: str.nullable().optional(),
  country: str.optional(),
  state: str.optional(),
  weather: str.optional(),
});

export const specMeeting = obj({
  meeting: str,
  name: str,
  date: str,
  track_condition: str.nullable(),
  category: z.enum(['T', 'H', 'G']),
  category_name: str,
  country: str,
  state: str,
  races: z.array(specRaceSummary),
});

export const specSingleMeeting = specMeeting.extend({
  video_channels: z.array(str),
  quaddie: z.array(int),
  early_quaddie: z.array(int),
  tote_meeting_number: int,
  races: z.array(specRaceSummary.extend({ tote_start_time: z.string().regex(/^\d{2}:\d{2}:\d{2}$/) })),
});

export const specMeetingsParams = obj({
  enc: str,
  date_from: str,
  date_to: str,
  type: str,
  country: str,
});

export const specMeetingsResponse = obj({
  header: specHeader,
  params: specMeetingsParams,
  data: obj({ meetings: z.array(specMeeting) }),
});
export const specMeetingResponse = specEnvelope(obj({ meetings: z.array(specSingleMeeting).length(1) }));

// ---- shape A --------------------------------------------------------------------------------

export const specRunnerA = obj({
  runner_number: int,
  horse_name: str,
  horse_id: str.optional(),
  barrier: int,
  weight: num,
  jockey_name: str,
  jockey_id: str.optional(),
  trainer_name: str,
  trainer_id: str.optional(),
  form: str.optional(),
  scratched: z.boolean(),
  fixed_odds: obj({ win: num, place: num }).optional(),
});

export const specResultA = obj({
  runner_number: int,
  finish_position: int,
  margin: num,
  time: num,
  dividends: obj({ win: num, place: num }).optional(),
});

export const specRaceA = obj({
  id: str,
  race_number: int,
  name: str,
  start_time: str,
  distance: int,
  track_condition: str.nullable(),
  status: str,
  runners: z.array(specRunnerA).optional(),
  results: z.array(specResultA).optional(),
});

export const specRacesResponse = specEnvelope(obj({ races: z.array(specRaceA) }), false);

// ---- shape B --------------------------------------------------------------------------------

const fluc = obj({ timestamp: str.optional(), fluc: num.optional() });
const startSummary = obj({
  number_of_starts: num,
  number_of_wins: num,
  number_of_placings: num,
  number_of_seconds: num,
  number_of_thirds: num,
  winning_distance: num.optional(),
});

export const specOdds = obj({
  fixed_win: num.optional(),
  fixed_place: num.optional(),
  pool_win: num.optional(),
  pool_place: num.optional(),
}).nullable();

export const specWeight = obj({ allocated: str.optional(), total: str.optional() }).nullable();

/** Members required in both the entrant and the runner record. */
export const specEntrant = obj({
  entrant_id: str,
  market_name: str,
  primary_market: z.boolean(),
  name: str,
  is_scratched: z.boolean(),
  gear: str,
  odds: specOdds,
  scratch_time: int,
  barrier: int,
  runner_number: int,
  prize_money: str,
  age: int,
  sex: str,
  colour: str,
  silk_colours: str,
  silk_url_64x64: str,
  silk_url_128x128: str,
  class_level: str,
  jockey: str,
  apprentice_indicator: str,
  allowance_weight: str,
  owners: str,
  country: str,
  trainer_name: str,
  last_twenty_starts: str,
  sire: str,
  dam: str,
  breeding: str,
  weight: specWeight,
  favourite: z.boolean(),
  mover: z.boolean(),
  form_indicators: z.array(z.unknown()).nullable(),
  trainer_location: str,
  is_late_scratched: z.boolean().nullable().optional(),
  is_emergency: z.boolean().nullable().optional(),
  horse_id: int.optional(),
  overall: startSummary.optional(),
});

export const specRunnerB = specEntrant.extend({
  meta: z.record(z.string(), z.string()).nullable(),
  flucs: z.array(num).nullable(),
  competitor_id: str,
  ride_guide_exists: z.boolean(),
  ride_guide_thumbnail: str,
  ride_guide_file: str,
  flucs_with_timestamp: obj({
    last_six: z.array(fluc).optional(),
    open: fluc.optional(),
    high: fluc.optional(),
    low: fluc.optional(),
    nine_am: fluc.optional(),
  }).nullable(),
  scr_time: str.nullable().optional(),
});

export const specRaceB = obj({
  event_id: str,
  meeting_name: str,
  display_meeting_name: str,
  meeting_id: str,
  status: str,
  description: str,
  advertised_start: int,
  actual_start: int,
  advertised_start_string: str,
  actual_start_string: str,
  race_number: int,
  type: str,
  start_type: str,
  country: str,
  state: str,
  distance: int,
  weather: str,
  form_guide: str,
  comment: str,
  silk_base_url: str,
  track_condition: str,
  track_direction: str,
  silk_url: str,
  entrant_count: int,
  positions_paid: int,
  tips: z.array(str).nullable(),
  rail_position: str,
  group: str,
  prize_monies: z.record(z.string(), num).nullable(),
  track_home_straight: num,
  field_size: int.nullable().optional(),
  protest: z.boolean().optional(),
  protest_reason: str.optional(),
});

export const specResultB = obj({
  position: int,
  name: str,
  barrier: int,
  runner_number: int,
  margin_length: num,
  entrant_id: str,
  positional_margin: str.optional(),
  time_ran: num.optional(),
  winning_time: num.optional(),
});

export const specDividend = obj({
  id: str,
  tote: str,
  product_name: str,
  status: str,
  dividend: num,
  pool_size: num.optional(),
  jackpot_size: num.optional(),
  positions: z.array(obj({ runner_number: int, position: int })),
  description: str.optional(),
});

export const specTotePool = obj({
  product_type: str,
  total: num,
  status: str,
  guarantee: num.optional(),
  brought_forward: num.optional(),
  terminating: z.boolean().optional(),
  jackpot: num.optional(),
  leg: num.optional(),
  is_commingled: z.boolean().optional(),
  is_concession: z.boolean().optional(),
  is_final: z.boolean().optional(),
  win_investment: str.optional(),
});

export const specSubstitution = obj({ entrant_id: str, tote: str, product_name: str });
const bet = obj({
  title: str,
  description: z.array(str),
  stake: num,
  legs: z.array(z.unknown()),
  place_time: str,
  place_odds: num,
});

export const specEventData = obj({
  race: specRaceB,
  favourite: specEntrant,
  runners: z.array(specRunnerB).nullable(),
  derivatives: z.array(specRunnerB).nullable(),
  mover: specEntrant,
  big_bets: z.array(bet).nullable(),
  live_bets: z.array(bet).nullable(),
  error: str,
  biggest_bet: bet.nullable().optional(),
  dividends: z.array(specDividend).nullable().optional(),
  money_tracker: obj({}).nullable().optional(),
  results: z.array(specResultB).nullable().optional(),
  substitutions: z.array(specSubstitution).nullable().optional(),
  tote_pools: z.array(specTotePool).nullable().optional(),
});

export const specEventResponse = specEnvelope(specEventData, false);

/** Error bodies: the usual one and the alternative nested one; 429 carries retry_after. */
export const specErrorBody = obj({ error: str, message: str });
export const specNestedErrorBody = obj({ error: obj({ code: str, message: str }) });
export const specRateLimitBody = obj({ error: str, retry_after: int });
