/**
 * The /events/{id} payload (shape B). Reuses the real /events records as templates, so members and their order
 * match the real API; per-runner static parts are built once.
 */
import { templates } from './data.js';
import type { RaceState, RaceStatic, RunnerState, RunnerStatic } from './model.js';
import { iso, isoNano, nzClock } from './payloads.js';
import { rngFor } from './rng.js';

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

// ---- shape B ----------------------------------------------------------------------------------

export interface EventOptions {
  moneyTracker: boolean;
  willPays: boolean;
  toteTrends: boolean;
  bigBets: boolean;
  liveBets: boolean;
  biggestBet: boolean;
}

/** Per-runner static part of the ~90-member runner record, built once per runner. */
const runnerBase = new WeakMap<RunnerStatic, Record<string, unknown>>();

function baseRunner(race: RaceStatic, r: RunnerStatic): Record<string, unknown> {
  let base = runnerBase.get(r);
  if (base) return base;
  const slug = r.name.toLowerCase().replace(/[^a-z]+/g, '-');
  const code = race.meeting.category;
  base = {
    ...templates.runner,
    entrant_id: r.entrantId,
    name: r.name,
    barrier: r.barrier,
    runner_number: r.number,
    jockey: r.jockey,
    trainer_name: r.trainer,
    country: race.meeting.country,
    horse_id: r.horseId,
    last_twenty_starts: r.form,
    weight: code === 'H' ? null : { allocated: String(r.weight), total: String(r.weight) },
    silk_url_64x64: `https://silks.sim.racewire.invalid/${slug}_64x64.png`,
    silk_url_128x128: `https://silks.sim.racewire.invalid/${slug}_128x128.png`,
    speedmap: { ...(templates.runner.speedmap as object), entrant_id: r.entrantId },
    runner_change: null,
    ...(code === 'G' ? { best_time: '30.12', predictors: [] } : {}),
    ...(code === 'H' ? { barrier_position: `Fr${r.barrier}` } : {}),
  };
  runnerBase.set(r, base);
  return base;
}

function runnerB(race: RaceStatic, r: RunnerStatic, s: RunnerState, fav: boolean, mover: boolean) {
  const scratched = s.scratchedAt !== null;
  const flucs = s.flucs.map((f) => ({ timestamp: isoNano(f.at), fluc: f.win }));
  const wins = s.flucs.map((f) => f.win);
  return {
    ...baseRunner(race, r),
    is_scratched: scratched,
    is_late_scratched: scratched && s.late,
    odds: { fixed_win: s.fixedWin, fixed_place: s.fixedPlace, pool_win: s.poolWin, pool_place: s.poolPlace },
    scratch_time: scratched ? Math.floor((s.scratchedAt as number) / 1000) : 0,
    favourite: fav,
    mover,
    flucs: wins,
    scr_time: scratched ? iso(s.scratchedAt as number) : null,
    flucs_with_timestamp: {
      last_six: flucs.slice(-6),
      open: flucs[0],
      high: flucs.reduce((a, b) => (b.fluc > a.fluc ? b : a)),
      low: flucs.reduce((a, b) => (b.fluc < a.fluc ? b : a)),
    },
  };
}

function totePools(race: RaceStatic, state: RaceState, opts: EventOptions): Record<string, unknown>[] {
  const closed = state.status !== 'Open';
  const growth = 1 + state.moves * 0.05;
  return templates.totePools.map((p) => ({
    ...p,
    total: Math.round((p.total as number) * race.poolScale * growth * 100) / 100,
    status: closed ? 'CLOSED' : 'OPEN',
    is_final: state.status === 'Final',
    ...(opts.toteTrends
      ? { tote_trends: { pool_total: Math.round((p.total as number) * race.poolScale * growth) } }
      : {}),
    ...(opts.willPays && p.product_type === 'EarlyQuadrella' ? { will_pays: [] } : {}),
  }));
}

export function eventData(race: RaceStatic, state: RaceState, opts: EventOptions): Record<string, unknown> {
  const m = race.meeting;
  const live = race.runners.filter((r) => state.runners.get(r.entrantId)?.scratchedAt === null);
  const price = (r: RunnerStatic) => (state.runners.get(r.entrantId) as RunnerState).fixedWin;
  const fav = live.reduce<RunnerStatic | undefined>((a, b) => (!a || price(b) < price(a) ? b : a), undefined);
  const drop = (r: RunnerStatic) => {
    const f = (state.runners.get(r.entrantId) as RunnerState).flucs;
    return f.length < 2
      ? 0
      : (f[f.length - 2] as { win: number }).win - (f[f.length - 1] as { win: number }).win;
  };
  const mover = live.reduce<RunnerStatic | undefined>((a, b) => (!a || drop(b) > drop(a) ? b : a), undefined);
  const runners = race.runners.map((r) =>
    runnerB(race, r, state.runners.get(r.entrantId) as RunnerState, r === fav, r === mover),
  );
  const entrant = (r: RunnerStatic | undefined) => {
    const rec = runners.find((x) => (x as Record<string, unknown>).entrant_id === r?.entrantId);
    if (!rec) return null;
    return Object.fromEntries(Object.entries(rec).filter(([k]) => !RUNNER_ONLY.has(k)));
  };
  const advertised = Math.floor(state.startTime / 1000);
  const actual = state.actualStart === null ? 0 : Math.floor(state.actualStart / 1000);
  const raceB = {
    ...templates.race,
    event_id: race.id,
    meeting_name: m.name,
    display_meeting_name: m.name,
    meeting_id: m.id,
    status: state.status,
    description: race.name,
    advertised_start: advertised,
    actual_start: actual,
    advertised_start_string: `${iso(state.startTime).replace('T', ' ').slice(0, 19)} +0000 UTC`,
    actual_start_string: actual
      ? `${iso(actual * 1000)
          .replace('T', ' ')
          .slice(0, 19)} +0000 UTC`
      : '',
    race_date_nz: new Date(state.startTime + 12 * 3_600_000).toISOString().slice(0, 10),
    start_time_nz: `${nzClock(state.startTime)} NZST`,
    race_number: race.raceNumber,
    type: m.category,
    start_type: m.category === 'H' ? 'Mobile' : '',
    country: m.country,
    state: m.state,
    distance: race.distance,
    weather: m.weather,
    comment: '',
    track_condition: state.trackCondition,
    entrant_count: race.runners.length,
    field_size: live.length,
    positions_paid: race.positionsPaid,
    tips: live.slice(0, 4).map((r) => r.entrantId),
    video_channels_meta: null,
    protest: state.protest,
    protest_reason: state.protest ? 'Protest upheld: placings amended' : '',
  };
  const data: Record<string, unknown> = { race: raceB };
  if (state.results) {
    const byId = new Map(race.runners.map((r) => [r.entrantId, r]));
    data.results = state.results.map((row) => {
      const r = byId.get(row.entrantId) as RunnerStatic;
      return {
        position: row.position,
        name: r.name,
        barrier: r.barrier,
        runner_number: r.number,
        margin_length: row.marginLength,
        ...(row.position === 1 ? { winning_time: row.timeRan } : { positional_margin: row.positionalMargin }),
        entrant_id: r.entrantId,
        ...(row.position === 1 ? { time_ran: row.timeRan } : {}),
      };
    });
  }
  if (state.dividends.length > 0) {
    data.dividends = state.dividends.map((d) => ({
      id: d.id,
      tote: m.country === 'NZ' ? 'NZ' : 'AU',
      product_name: d.product,
      status: d.status,
      dividend: d.dividend,
      pool_size: d.poolSize,
      jackpot_size: 0,
      positions: d.positions,
      description: d.positions.map((p) => p.runner_number).join(':'),
    }));
  }
  data.substitutions = null;
  data.favourite = entrant(fav);
  data.runners = runners;
  data.derivatives = null;
  data.mover = entrant(mover);
  data.big_bets = opts.bigBets ? [] : null;
  data.live_bets = opts.liveBets ? [] : null;
  data.biggest_bet = null;
  if (opts.moneyTracker) {
    const rng = rngFor(race.index, race.id, 'money', state.moves);
    data.money_tracker = {
      entrants: live.map((r) => ({
        entrant_id: r.entrantId,
        hold_percentage: rng.int(0, 12),
        bet_percentage: rng.int(0, 12),
      })),
    };
  }
  data.tote_pools = totePools(race, state, opts);
  data.error = '';
  return data;
}
