/**
 * A race's precomputed story: its lifecycle, its fixed-odds market, and the outcome (results, dividends,
 * the odd protest) as timed changes. Results and dividends come from the prices at the close.
 */
import { byTime, change, MINUTE, placesPaidIn } from './changes.js';
import type { Lifecycle } from './lifecycle.js';
import { marketStory } from './market.js';
import type { RaceStatic, TimedChange } from './model.js';
import { dividendRows, drawPlacings, lodgedReason, protestOutcome, resultRows } from './outcome.js';
import { appliedCount, foldState } from './state.js';
import { poolPrices, poolsOf, poolTotal } from './tote.js';

export function storyOf(
  seed: number,
  race: RaceStatic,
  life: Lifecycle,
  lifecycle: readonly TimedChange[],
  nextSeq: () => number,
): TimedChange[] {
  const out: TimedChange[] = [...lifecycle];
  const add = (at: number, type: TimedChange['type'], detail: Record<string, unknown>, extra = {}) =>
    out.push(change(race, Math.round(at), nextSeq(), type, detail, extra));
  for (const d of marketStory(seed, race, life)) add(d.at, d.type, d.detail);
  out.sort(byTime);
  if (life.abandonAt !== null) return out;

  const close = foldState(race, out, appliedCount(out, life.closeAt));
  const prices = poolPrices(seed, race, close.runners, close.startTime, life.closeAt);
  const totals = Object.fromEntries(
    poolsOf(race).map((p) => [p.product, poolTotal(p, life.closeAt, close.startTime)]),
  );
  const placings = drawPlacings(seed, race, close.runners, 'run');
  // Places are paid by the starters at the close: a late scratching before it can take a place away.
  const paid = placesPaidIn(race, close.runners);
  add(life.interimAt, 'results', { placings }, { results: resultRows(seed, race, placings) });
  add(
    life.interimDividendsAt,
    'dividends',
    { status: 'Interim' },
    { dividends: dividendRows(seed, race, placings, paid, prices, totals, 'Interim') },
  );
  let final = placings;
  if (life.protest) {
    const decided = protestOutcome(seed, race, placings, life.protest);
    final = decided.placings;
    // A protest is lodged a minute after the Interim dividends (the race stays Interim while it is
    // heard); a disqualification is the stewards' own, announced with the decision.
    if (life.protest !== 'disqualified') {
      add(life.interimDividendsAt + MINUTE, 'protest', {
        kind: 'lodged',
        placings,
        reason: lodgedReason(decided.reason),
      });
    }
    add(
      life.finalAt,
      'protest',
      { kind: life.protest, placings: final, reason: decided.reason },
      { results: resultRows(seed, race, final) },
    );
  }
  add(
    life.finalAt,
    'dividends',
    { status: 'Final' },
    { dividends: dividendRows(seed, race, final, paid, prices, totals, 'Final') },
  );
  return out.sort(byTime);
}
