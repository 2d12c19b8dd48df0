/**
 * The law of the tote batch: for any two related payloads, each pool price that changed (a usable price, a
 * finite number above zero, differs) on a runner present in both, unscratched and with an odds record on
 * both sides, appears exactly once across the events, in the one `odds.pools_changed`, and nothing else
 * does; `odds.changed` carries the fixed-odds markets only.
 */
import type { DetectedRaceEvent, PoolsChangedData } from '@racewire/client/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { raceContext, runnersOf } from '../../src/watch/detect/detect-context.js';
import { detectOddsChanges } from '../../src/watch/detect/detect-odds.js';
import { normaliseEvent, type RaceDocument } from '../../src/watch/track/normalise.js';
import { mutate, mutationArb } from './mutations.js';
import { change, type Loose, openPayload } from './support.js';

const usable = (odds: unknown, market: string): number | null => {
  const v = (odds as Loose)?.[market];
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : null;
};

/** `entrantId/market` of every pool price that changed between the documents. */
function poolMoves(prev: RaceDocument, next: RaceDocument): string[] {
  const before = runnersOf(prev);
  const out: string[] = [];
  for (const [key, b] of runnersOf(next)) {
    const a = before.get(key);
    if (!a || b.is_scratched === true) continue;
    if (typeof a.odds !== 'object' || a.odds === null || typeof b.odds !== 'object' || b.odds === null)
      continue;
    for (const market of ['pool_win', 'pool_place']) {
      if (usable(a.odds, market) !== usable(b.odds, market)) out.push(`${b.entrant_id}/${market}`);
    }
  }
  return out;
}

const base = openPayload();
const mutations = fc.array(mutationArb, { minLength: 0, maxLength: 8 });

describe('odds.pools_changed', () => {
  it('holds each pool change of a payload exactly once, in one event, never empty', () => {
    fc.assert(
      fc.property(mutations, mutations, (first, second) => {
        const prevPayload = mutate(base, first);
        const prev = normaliseEvent(prevPayload);
        const next = normaliseEvent(mutate(prevPayload, second));
        const events: DetectedRaceEvent[] = detectOddsChanges(prev, next, raceContext(next), {});
        const batches = events.filter((e) => e.type === 'odds.pools_changed');
        expect(batches.length).toBeLessThanOrEqual(1);
        const changes = batches.flatMap((e) => (e.data as PoolsChangedData).changes);
        if (batches.length === 1) expect(changes.length).toBeGreaterThan(0);
        const seen = changes.map((c) => `${c.runner.entrantId}/${c.market}`);
        expect([...seen].sort()).toEqual(poolMoves(prev, next).sort());
        expect(new Set(seen).size).toBe(seen.length);
        for (const e of events) {
          if (e.type === 'odds.changed') expect(['fixed_win', 'fixed_place']).toContain(e.data.market);
        }
      }),
      { numRuns: 100 },
    );
    // Two real payloads normalised per run: seconds on a busy 2-core machine.
  }, 90_000);

  it('is not vacuous: a pool move on two runners gives one batch of two', () => {
    const next = change(base, (d) => {
      d.runners[0].odds.pool_win = 99;
      d.runners[1].odds.pool_place = 99;
    });
    const events = detectOddsChanges(
      normaliseEvent(base),
      normaliseEvent(next),
      raceContext(normaliseEvent(next)),
      {},
    );
    expect(events.map((e) => e.type)).toEqual(['odds.pools_changed']);
    expect(
      (events[0]!.data as PoolsChangedData).changes.map((c) => [c.runner.runnerNumber, c.market]),
    ).toEqual([
      [1, 'pool_win'],
      [2, 'pool_place'],
    ]);
  });
});
