/**
 * Entrants outside the field: ids of the race's other markets (the real money tracker holds 3 to 5 of them,
 * the real tips 1 of 6 and 3 of 6, and one real payload's mover is one of them). Each is stable per race,
 * drawn from the seed, and shared by the money tracker, the tips and the mover so they name the same ids.
 * As the real outside mover, its record says market `Live Racing`, `primary_market` false and odds
 * `{fixed_win: 1, fixed_place: 0}`; its number and barrier are drawn from the field's range (not measured),
 * so a consumer matching by number rather than id meets a clash.
 */
import { MINUTE } from './changes.js';
import { horseName } from './field.js';
import type { RaceStatic } from './model.js';
import { rngFor } from './rng.js';

export interface Outsider {
  entrantId: string;
  name: string;
  number: number;
  barrier: number;
}

/** The race's entrants outside the field, 3 to 5 (the real money tracker's range). */
export function outsidersOf(seed: number, race: RaceStatic): Outsider[] {
  const rng = rngFor(seed, 'outsiders', race.id);
  const size = race.runners.length;
  return Array.from({ length: rng.int(3, 5) }, () => ({
    entrantId: rng.uuid(),
    name: horseName(rng),
    number: rng.int(1, size),
    barrier: rng.int(1, size),
  }));
}

/** The tips: six ids, one to three of them outside the field (the real 1 of 6 and 3 of 6), in a stable order. */
export function tipsOf(seed: number, race: RaceStatic, live: readonly { entrantId: string }[]): string[] {
  const rng = rngFor(seed, 'tips', race.id);
  const outside = outsidersOf(seed, race).slice(0, rng.int(1, 3));
  const inside = live.slice(0, 6 - outside.length);
  return rng.shuffle([...inside, ...outside].map((e) => e.entrantId));
}

/**
 * When an outsider becomes the race's mover, or null: in half the races (one of the two real payloads has
 * an outside mover), at a time drawn in the last 30 minutes before the advertised start.
 */
export function outsideMoverFrom(seed: number, race: RaceStatic, startTime: number): number | null {
  const rng = rngFor(seed, 'outside-mover', race.id);
  return rng.chance(0.5) ? startTime - rng.int(1, 30) * MINUTE : null;
}

/** The outsider's entrant record: the shape of a field entrant's, with the values the real one has. */
export function outsiderRecord(template: Record<string, unknown>, o: Outsider): Record<string, unknown> {
  // A late scratching's deduction belongs to the runner the template was, not to the outsider.
  const { deduction: _, ...entrant } = template;
  return {
    ...entrant,
    entrant_id: o.entrantId,
    name: o.name,
    runner_number: o.number,
    barrier: o.barrier,
    market_name: 'Live Racing',
    primary_market: false,
    is_scratched: false,
    is_late_scratched: false,
    favourite: false,
    mover: true,
    odds: { fixed_win: 1, fixed_place: 0 },
  };
}
