/**
 * The simulator's side of the statistics in real-data.ts, computed the same way: the tests hold them to
 * the real figures, and bench/simulator-fidelity.ts prints both.
 */

import type { Simulator, SimWorld } from '../../src/simulator/index.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { type MarketFigures, type Move, marketFigures } from './real-data.js';
import { API } from './support.js';

const NORTH_AMERICA = new Set(['USA', 'CA']);
type Rec = Record<string, unknown>;

/** Actual minus advertised start (s) of every simulated race that runs, by region. */
export function simJumps(world: SimWorld, races: readonly RaceStatic[] = world.races) {
  const out = { northAmerica: [] as number[], elsewhere: [] as number[], all: [] as number[] };
  for (const race of races) {
    if (race.abandoned) continue;
    const life = world.lifecycle(race.id);
    const s = (life.closeAt - life.start) / 1000;
    out[NORTH_AMERICA.has(race.meeting.country) ? 'northAmerica' : 'elsewhere'].push(s);
    out.all.push(s);
  }
  return out;
}

/**
 * The fixed-win market of races from their states at the close; moves are counted on races without
 * scratchings, as the real one (a scratching reframes the market, early or late).
 */
export function simMarket(
  world: SimWorld,
  races: readonly RaceStatic[],
): MarketFigures & { closing: number[] } {
  const closing: number[] = [];
  const opening: number[] = [];
  const runs: { open: number; moves: Move[] }[] = [];
  const times: { start: number; close: number }[] = [];
  for (const race of races) {
    const life = world.lifecycle(race.id);
    const state = world.stateAt(race.id, life.closeAt).state;
    const live = [...state.runners.values()].filter((r) => r.scratchedAt === null);
    closing.push(live.reduce((a, r) => a + 1 / r.fixedWin, 0));
    opening.push(race.runners.reduce((a, r) => a + 1 / r.openWin, 0));
    if (live.length !== state.runners.size) continue;
    for (const r of live) {
      const moves = r.flucs
        .slice(1)
        .map((f, i) => ({ at: f.at, from: (r.flucs[i] as { win: number }).win, to: f.win }));
      runs.push({ open: r.flucs[0]?.at as number, moves });
      times.push({ start: life.start, close: life.closeAt });
    }
  }
  return { ...marketFigures(runs, times, { closing, opening }), closing };
}

/**
 * /events payloads of races, each at the instant `when` gives, with the query given. It yields to the event
 * loop after each race: without that, a whole day's payloads (places-paid's hook, 100 s at load 15) kept the
 * worker from answering Vitest past its 60 s RPC timeout ("Timeout calling onTaskUpdate"), an error that
 * fails the run although every test passed.
 */
export async function eventsAt(
  sim: Simulator,
  clock: { set(t: number): void },
  races: readonly RaceStatic[],
  when: (race: RaceStatic) => number,
  query: string,
): Promise<{ data: Rec; bytes: number }[]> {
  const out: { data: Rec; bytes: number }[] = [];
  for (const race of races) {
    clock.set(when(race));
    const res = await sim.app.inject({ method: 'GET', url: `${API}/events/${race.id}?${query}` });
    out.push({ data: (JSON.parse(res.body) as { data: Rec }).data, bytes: Buffer.byteLength(res.body) });
    await new Promise((resolve) => setImmediate(resolve));
  }
  return out;
}

/** Thoroughbred races of a day with 8 runners that run: the real race's kind. */
export const likeTheRealRace = (world: SimWorld, day: string) =>
  world.races.filter(
    (r) => r.meeting.dayKey === day && r.meeting.category === 'T' && !r.abandoned && r.runners.length === 8,
  );

/** The query of the real payload's request: money tracker, tote trends and will-pays. */
export const REAL_OPTIONS = 'enc=json&with_money_tracker=true&with_tote_trends_data=true&with_will_pays=true';
