/**
 * The /events/{id} payload (shape B), members in the real order: race, results, dividends, substitutions,
 * favourite, runners, derivatives, mover, big_bets, live_bets, biggest_bet, money_tracker, tote_pools,
 * error. The `with_*` members are null unless asked for, as big_bets, live_bets and biggest_bet are in the
 * real payload. Runner records come from the real one (runner-record.ts); favourite and mover are full
 * entrant records as in the real payload.
 */

import { betRecord } from './bet-record.js';
import { BIG_BET, type SimBet } from './bets.js';
import { raceRecord } from './event-records.js';
import type { RaceState, RaceStatic, ResultRow, RunnerState, RunnerStatic } from './model.js';
import { moneyTracker } from './money.js';
import { type Outsider, outsideMoverFrom, outsiderRecord, outsidersOf, tipsOf } from './outsiders.js';
import { iso, isoNano } from './payloads.js';
import { rngFor } from './rng.js';
import { pushRunnerJson } from './runner-json.js';
import { staticRunners } from './runner-record.js';
import { silkUrl } from './silks.js';
import { pricesAt } from './tote.js';
import { substitutions, totePools } from './tote-payload.js';

/** Members of the runner record that the entrant record (favourite, mover) does not have. */
const RUNNER_ONLY = new Set([
  'ride_guide_thumbnail',
  'competitor_id',
  'meta',
  'flucs_with_timestamp',
  'ride_guide_exists',
  'flucs',
  'picks',
  'ride_guide_file',
  'scr_time',
]);

export interface EventOptions {
  moneyTracker: boolean;
  willPays: boolean;
  toteTrends: boolean;
  bigBets: boolean;
  liveBets: boolean;
  biggestBet: boolean;
}

/** Bets listed per member, as the real params echo (`bets_limit: 10`). */
export const BETS_LIMIT = 10;

export interface EventInput {
  seed: number;
  race: RaceStatic;
  state: RaceState;
  t: number;
  bets: readonly SimBet[];
  opts: EventOptions;
  /** Where the simulator serves silks, e.g. http://127.0.0.1:8081. */
  silkBase: string;
}

const live = (race: RaceStatic, state: RaceState) =>
  race.runners.filter((r) => state.runners.get(r.entrantId)?.scratchedAt === null);
const runnerState = (state: RaceState, r: RunnerStatic) => state.runners.get(r.entrantId) as RunnerState;

/** The favourite: the shortest fixed win price still running (lowest number on a tie). */
function favourite(race: RaceStatic, state: RaceState): RunnerStatic | undefined {
  let best: RunnerStatic | undefined;
  for (const r of live(race, state)) {
    if (!best || runnerState(state, r).fixedWin < runnerState(state, best).fixedWin) best = r;
  }
  return best;
}

/**
 * The mover: the runner whose fixed-odds chance (1 / price) rose most since the open. In the real
 * payload that is the runner flagged (8.5 -> 5), not the biggest drop in price (41 -> 13).
 */
function mover(race: RaceStatic, state: RaceState): RunnerStatic | undefined {
  let best: RunnerStatic | undefined;
  let gain = Number.NEGATIVE_INFINITY;
  for (const r of live(race, state)) {
    const s = runnerState(state, r);
    const g = 1 / s.fixedWin - 1 / (s.flucs[0]?.win ?? s.fixedWin);
    if (g > gain) [best, gain] = [r, g];
  }
  return best;
}

/** The members of a runner record that move (its static ones are `base`, runner-record.ts). */
function liveMembers(
  input: EventInput,
  r: RunnerStatic,
  flags: { fav: boolean; mover: boolean },
  pool: { win: number; place: number } | undefined,
) {
  const s = runnerState(input.state, r);
  const scratched = s.scratchedAt !== null;
  const flucs = s.flucs.map((f) => ({ timestamp: isoNano(f.at), fluc: f.win }));
  const silk64 = silkUrl(input.silkBase, r.silk, 64);
  const silk128 = silkUrl(input.silkBase, r.silk, 128);
  return {
    is_scratched: scratched,
    is_late_scratched: scratched && s.late,
    // An emergency keeps its flag and position until promoted into the field (then false and "", as a
    // runner of the field has them in the real payload), or when scratched without a start.
    ...(r.emergency === null
      ? {}
      : {
          is_emergency: s.emergency !== null,
          emergency_position: s.emergency === null ? '' : String(s.emergency),
        }),
    odds: {
      fixed_win: s.fixedWin,
      fixed_place: s.fixedPlace,
      // Absent before the tote opens, and for a scratched runner (README: pool_* prices can be absent).
      ...(pool ? { pool_win: pool.win, pool_place: pool.place } : {}),
    },
    scratch_time: scratched ? Math.floor((s.scratchedAt as number) / 1000) : 0,
    silk_url_64x64: silk64,
    silk_url_128x128: silk128,
    alt_silk_url_64x64: silk64,
    alt_silk_url_128x128: silk128,
    favourite: flags.fav,
    mover: flags.mover,
    flucs: s.flucs.map((f) => f.win),
    scr_time: scratched ? iso(s.scratchedAt as number) : null,
    flucs_with_timestamp: {
      last_six: flucs.slice(-6),
      open: flucs[0],
      high: flucs.reduce((a, b) => (b.fluc > a.fluc ? b : a)),
      low: flucs.reduce((a, b) => (b.fluc < a.fluc ? b : a)),
      nine_am: flucs[0],
    },
    ...(s.deduction ? { deduction: s.deduction } : {}),
  };
}

function betsMembers(input: EventInput) {
  const { race, state, t, opts } = input;
  const until = Math.min(t, state.closedAt ?? Number.POSITIVE_INFINITY);
  const placed = input.bets.filter((b) => {
    if (b.at > until) return false;
    // A bet on a runner scratched before it was placed could not have been taken.
    return b.entrantIds.every((id) => {
      const at = state.runners.get(id)?.scratchedAt;
      return at == null || at > b.at;
    });
  });
  const record = (b: SimBet) => betRecord(race, b);
  const newest = (list: SimBet[]) => list.slice(-BETS_LIMIT).reverse().map(record);
  const biggest = placed.reduce<SimBet | undefined>((a, b) => (!a || b.stake > a.stake ? b : a), undefined);
  return {
    big_bets: opts.bigBets ? newest(placed.filter((b) => b.stake >= BIG_BET)) : null,
    live_bets: opts.liveBets ? newest(placed) : null,
    biggest_bet: opts.biggestBet && biggest ? record(biggest) : null,
  };
}

/**
 * The results as the real payloads list them: every starter with margins (Awapuni), or, in half the races
 * (the second real Final: the top 4 of 7), only the top four with every margin_length 0 and no
 * positional_margin.
 */
function resultRecords(seed: number, race: RaceStatic, rows: readonly ResultRow[]) {
  const byId = new Map(race.runners.map((r) => [r.entrantId, r]));
  const partial = rngFor(seed, 'results-listed', race.id).chance(0.5);
  return rows
    .filter((row) => !partial || row.position <= PARTIAL_RESULTS)
    .map((row) => {
      const r = byId.get(row.entrantId) as RunnerStatic;
      return {
        position: row.position,
        name: r.name,
        barrier: r.barrier,
        runner_number: r.number,
        margin_length: partial ? 0 : row.marginLength,
        ...(row.position === 1
          ? { winning_time: row.timeRan }
          : partial
            ? {}
            : { positional_margin: row.positionalMargin }),
        entrant_id: r.entrantId,
        ...(row.position === 1 ? { time_ran: row.timeRan } : {}),
      };
    });
}

/** Rows a partial result list keeps (the second real Final lists the top 4 of 7). */
export const PARTIAL_RESULTS = 4;

/**
 * The payload's members, each runner record as its static base and its live members: `runners` holds a
 * placeholder, which `eventBytes` fills with each `{ ...base, ...live }` (a test checks it against
 * `JSON.stringify` of the whole).
 */
export function eventMembers(input: EventInput): {
  data: Record<string, unknown>;
  runners: Array<{ base: Record<string, unknown>; live: Record<string, unknown> }>;
} {
  const { seed, race, state, t, opts } = input;
  const tote = pricesAt(seed, race, state, t);
  const prices = tote?.prices ?? new Map();
  const fav = favourite(race, state);
  // From its time on, the race's mover is an entrant outside the field, and no runner is flagged.
  const outsideFrom = outsideMoverFrom(seed, race, state.startTime);
  const outsideMover = outsideFrom !== null && Math.min(t, state.closedAt ?? t) >= outsideFrom;
  const move = outsideMover ? undefined : mover(race, state);
  const bases = staticRunners(seed, race);
  const runners = race.runners.map((r, i) => ({
    base: bases[i] as Record<string, unknown>,
    live: liveMembers(input, r, { fav: r === fav, mover: r === move }, prices.get(r.entrantId)),
  }));
  const entrant = (r: RunnerStatic | undefined) => {
    const rec = r ? runners[race.runners.indexOf(r)] : undefined;
    if (!rec) return null;
    return Object.fromEntries(
      Object.entries({ ...rec.base, ...rec.live }).filter(([k]) => !RUNNER_ONLY.has(k)),
    );
  };
  const field = live(race, state);
  const data: Record<string, unknown> = {
    race: raceRecord(race, state, field, input.silkBase, tipsOf(seed, race, field)),
  };
  if (state.results) data.results = resultRecords(seed, race, state.results);
  if (state.dividends.length > 0) {
    data.dividends = state.dividends.map((d) => ({
      id: d.id,
      tote: 'NZ',
      product_name: d.product,
      status: d.status,
      dividend: d.dividend,
      pool_size: d.poolSize,
      jackpot_size: 0,
      positions: d.positions,
      description: d.description ?? d.positions.map((p) => p.runner_number).join(':'),
    }));
  }
  data.substitutions = substitutions(race, prices);
  // The favourite record says favourite: false, as the real one (its runner in `runners` says true).
  const favRecord = entrant(fav);
  data.favourite = favRecord && { ...favRecord, favourite: false };
  data.runners = RUNNERS;
  data.derivatives = null;
  data.mover = outsideMover
    ? outsiderRecord(entrant(race.runners[0]) ?? {}, outsidersOf(seed, race)[0] as Outsider)
    : entrant(move);
  Object.assign(data, betsMembers(input));
  data.money_tracker = opts.moneyTracker ? moneyTracker(seed, race, state, t) : null;
  data.tote_pools = totePools(race, state, tote?.tick ?? null, prices, opts);
  data.error = '';
  return { data, runners };
}

/** Where the runner records go in the serialised payload (no real member holds this string). */
const RUNNERS = '\u0000runners\u0000';
const RUNNERS_JSON = JSON.stringify(RUNNERS);

/** The payload's `data` as UTF-8 JSON: `JSON.stringify` of it, the runners' static members serialised once. */
export function eventBytes(input: EventInput): Buffer {
  const { data, runners } = eventMembers(input);
  const json = JSON.stringify(data);
  const at = json.indexOf(RUNNERS_JSON);
  const parts = [Buffer.from(`${json.slice(0, at)}[`)];
  runners.forEach(({ base, live }, i) => {
    if (i > 0) parts.push(COMMA);
    pushRunnerJson(parts, base, live);
  });
  parts.push(Buffer.from(`]${json.slice(at + RUNNERS_JSON.length)}`));
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(',');
