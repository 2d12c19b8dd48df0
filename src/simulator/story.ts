/**
 * A race's precomputed story: scratchings, odds moves, delay, jump, Interim with results, dividends, Final,
 * the odd protest and abandonment, as timed changes drawn from the race's seeded stream.
 */
import { byTime, change, ladder, MINUTE, openState, placeOf } from './changes.js';
import type { RaceStatic, RunnerState, TimedChange } from './model.js';
import { dividendRows, drawPlacings, resultRows } from './outcome.js';
import type { Rng } from './rng.js';

export function storyOf(
  seed: number,
  race: RaceStatic,
  abandoned: boolean,
  rng: Rng,
  nextSeq: () => number,
): TimedChange[] {
  const out: TimedChange[] = [];
  const S = race.advertisedStart;
  const add = (at: number, type: TimedChange['type'], detail: Record<string, unknown>, extra = {}) =>
    out.push(change(race, Math.round(at), nextSeq(), type, detail, extra));

  // Start delay (occasional), jump, running time, Interim, Final.
  const delayMin = !abandoned && rng.chance(0.05) ? rng.pick([2, 3, 5, 10]) : 0;
  const start = S + delayMin * MINUTE;
  const closedAt = start + rng.int(20, 150) * 1000;
  const running = (race.distance / (race.meeting.category === 'G' ? 17 : 16)) * 1000;
  const interimAt = closedAt + running + rng.int(20, 60) * 1000;
  const finalAt = interimAt + rng.int(3, 8) * MINUTE;
  const abandonAt = abandoned ? S - rng.int(10, 90) * MINUTE : Number.POSITIVE_INFINITY;
  const endOfMarket = Math.min(closedAt, abandonAt);

  // Scratchings: most some days out, some late.
  const state = openState(race);
  const scratchCount = rng.chance(0.5) ? 0 : rng.chance(0.7) ? 1 : 2;
  const scratchAt = new Map<string, number>();
  for (let i = 0; i < scratchCount && race.runners.length > 4; i++) {
    const runner = rng.pick(race.runners);
    if (scratchAt.has(runner.entrantId)) continue;
    const late = rng.chance(0.3);
    const at = late ? S - rng.int(5, 60) * MINUTE : S - rng.int(3 * 60, 40 * 60) * MINUTE;
    if (at >= endOfMarket) continue;
    scratchAt.set(runner.entrantId, at);
    add(at, 'scratching', { entrantId: runner.entrantId, runnerNumber: runner.number, late });
  }

  // Odds moves: one or two early, then bunched toward the jump (from ~30 min before to ~2 min after).
  for (const runner of race.runners) {
    const moves: number[] = [];
    if (rng.chance(0.6)) moves.push(S - rng.int(2 * 60, 40 * 60) * MINUTE);
    const late = rng.int(1, 4);
    for (let i = 0; i < late; i++) moves.push(S + 2 * MINUTE - 32 * MINUTE * rng.next() ** 2);
    moves.sort((a, b) => a - b);
    let win = runner.openWin;
    for (const at of moves) {
      const t = Math.round(at);
      if (t >= endOfMarket || t <= race.marketOpen || t >= (scratchAt.get(runner.entrantId) ?? Infinity))
        continue;
      const intensity = t > S - 30 * MINUTE ? 0.18 : 0.1;
      const next = ladder(win * Math.exp(rng.normal() * intensity));
      if (next === win) continue;
      win = next;
      const poolWin = Math.round(win * rng.range(0.85, 1.15) * 10) / 10;
      add(t, 'odds', {
        entrantId: runner.entrantId,
        runnerNumber: runner.number,
        fixedWin: win,
        fixedPlace: placeOf(win),
        poolWin: Math.max(1.1, poolWin),
        poolPlace: placeOf(Math.max(1.1, poolWin)),
      });
    }
  }

  if (abandoned) {
    add(abandonAt, 'status', { from: 'Open', to: 'Abandoned' });
    return out.sort(byTime);
  }
  if (delayMin > 0) {
    add(S - rng.int(5, 20) * MINUTE, 'start_time', {
      from: new Date(S).toISOString(),
      to: new Date(start).toISOString(),
      minutes: delayMin,
    });
  }
  add(closedAt, 'status', { from: 'Open', to: 'Closed' });

  // Results and dividends use the prices at the jump; compute them on a replay of the story so far.
  out.sort(byTime);
  const atJump = replayOdds(state, out);
  const placings = drawPlacings(seed, race, atJump, 'run');
  const results = resultRows(seed, race, placings);
  add(interimAt, 'status', { from: 'Closed', to: 'Interim' });
  add(interimAt, 'results', { placings }, { results });
  add(
    interimAt + rng.int(20, 60) * 1000,
    'dividends',
    { status: 'Interim' },
    {
      dividends: dividendRows(seed, race, placings, atJump, 'Interim'),
    },
  );
  let finalPlacings = placings;
  if (rng.chance(0.04) && placings.length >= 2) {
    // A successful protest: first and second swap places between Interim and Final.
    finalPlacings = [placings[1] as string, placings[0] as string, ...placings.slice(2)];
    add(
      finalAt,
      'protest',
      { placings: finalPlacings, upheld: true },
      { results: resultRows(seed, race, finalPlacings) },
    );
  }
  add(finalAt, 'status', { from: 'Interim', to: 'Final' });
  add(
    finalAt,
    'dividends',
    { status: 'Final' },
    {
      dividends: dividendRows(seed, race, finalPlacings, atJump, 'Final'),
    },
  );
  return out.sort(byTime);
}

/** Runner prices and scratchings after applying the odds and scratching changes in `list`. */
function replayOdds(state: Map<string, RunnerState>, list: TimedChange[]): Map<string, RunnerState> {
  for (const c of list) {
    const r = state.get(c.detail.entrantId as string);
    if (!r) continue;
    if (c.type === 'odds') {
      r.fixedWin = c.detail.fixedWin as number;
      r.poolWin = c.detail.poolWin as number;
    } else if (c.type === 'scratching') r.scratchedAt = c.at;
  }
  return state;
}
