/**
 * The real structures of issue 22 a fuzz payload can carry, and which of them one payload holds: the fuzz
 * counts the payloads it served with each, so a run says what it exercised (0 is printed too).
 */
import { protestStatus } from '../../src/watch/detect/detect-race.js';
import type { Loose } from '../watch/support.js';

const ids = (list: unknown): Set<string> =>
  new Set((Array.isArray(list) ? list : []).map((x: Loose) => x?.entrant_id).filter(Boolean));
const bets = (d: Loose): Loose[] =>
  [...(d.big_bets ?? []), ...(d.live_bets ?? []), ...(d.biggest_bet ? [d.biggest_bet] : [])].filter(Boolean);
const legsOf = (b: Loose): Loose[] => (Array.isArray(b.legs) ? b.legs : []);

/** Each structure, with whether a payload's data holds it. */
export const STRUCTURES = {
  'results: top rows only': (d: Loose) =>
    Array.isArray(d.results) &&
    d.results.length > 0 &&
    d.results.length < (d.runners ?? []).filter((r: Loose) => !r.is_scratched).length,
  'results: margins absent': (d: Loose) =>
    Array.isArray(d.results) &&
    d.results.length > 1 &&
    d.results.every((r: Loose) => !r.margin_length && !('positional_margin' in r)),
  'results: dead heat': (d: Loose) =>
    Array.isArray(d.results) && new Set(d.results.map((r: Loose) => r?.position)).size < d.results.length,
  'race: protest while Interim': (d: Loose) => d.race?.protest === true && d.race?.status === 'Interim',
  'race: protest upheld': (d: Loose) => d.race && protestStatus(d.race) === 'upheld',
  'race: protest dismissed': (d: Loose) => d.race && protestStatus(d.race) === 'dismissed',
  'dividends: Interim and Final interleaved': (d: Loose) =>
    Array.isArray(d.dividends) &&
    d.dividends.some(
      (r: Loose, i: number) =>
        r.status === 'Interim' && d.dividends.slice(0, i).some((x: Loose) => x.status === 'Final'),
    ),
  'tips outside the field': (d: Loose) => {
    const field = ids(d.runners);
    return (d.race?.tips ?? []).some((id: string) => !field.has(id));
  },
  'mover outside the field': (d: Loose) => !!d.mover && !ids(d.runners).has(d.mover.entrant_id),
  'money tracker outside the field': (d: Loose) => {
    const field = ids(d.runners);
    return [...ids(d.money_tracker?.entrants)].some((id) => !field.has(id));
  },
  'bets: legs on other races': (d: Loose) =>
    bets(d).some((b) => legsOf(b).some((l) => l.race?.race_number !== d.race?.race_number)),
  'bets: selections null': (d: Loose) => bets(d).some((b) => legsOf(b).some((l) => l.selections === null)),
  'bets: uuid-string entrant ids': (d: Loose) =>
    bets(d).some((b) => legsOf(b).some((l) => typeof l.race?.entrant_id === 'string')),
  'pools: RunningDouble, Double or Treble': (d: Loose) =>
    (d.tote_pools ?? []).some((p: Loose) => ['RunningDouble', 'Double', 'Treble'].includes(p?.product_type)),
  'pools: non-zero guarantee': (d: Loose) => (d.tote_pools ?? []).some((p: Loose) => p?.guarantee > 0),
  'dividends: concession': (d: Loose) =>
    (d.dividends ?? []).some((r: Loose) => String(r?.description).startsWith('concession:')),
} satisfies Record<string, (d: Loose) => boolean>;

export type Structure = keyof typeof STRUCTURES;

/** Adds one to each structure `data` holds. */
export function countStructures(data: Loose, counts: Record<Structure, number>): void {
  for (const [name, holds] of Object.entries(STRUCTURES) as [Structure, (d: Loose) => boolean][]) {
    if (holds(data)) counts[name]++;
  }
}

export const noStructures = (): Record<Structure, number> =>
  Object.fromEntries(Object.keys(STRUCTURES).map((k) => [k, 0])) as Record<Structure, number>;
