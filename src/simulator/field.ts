/**
 * A race's field, drawn from the seed when the race is first used: runners, their names, people, weights,
 * silks, form line and latent chances (the opening prices come from them at the measured opening book).
 */
import { ladder } from './changes.js';
import { OPEN_BOOK } from './market.js';
import type { RaceStatic, RunnerStatic } from './model.js';
import { type Rng, rngFor } from './rng.js';
import { drawSilk } from './silks.js';

const SYLLABLES = ['ka', 'ro', 'mi', 'ta', 'vel', 'sun', 'dar', 'lo', 'bel', 'ne', 'sto', 'rm', 'fly', 'ace'];
const WORDS = ['Star', 'Lady', 'King', 'Royal', 'Storm', 'Dancer', 'Bay', 'Flash', 'Gold', 'River', 'Jet'];
const FIRST = ['Liam', 'Kate', 'Sam', 'Ava', 'Tom', 'Mia', 'Jack', 'Zoe', 'Ben', 'Ella', 'Josh', 'Ruby'];
const LAST = ['Kauri', 'Hercock', 'Smith', 'Walker', 'Brown', 'Taylor', 'Nguyen', 'Wilson', 'Reid', 'Clarke'];

export function horseName(rng: Rng): string {
  const w = rng.pick(SYLLABLES) + rng.pick(SYLLABLES) + rng.pick(SYLLABLES);
  const head = w.charAt(0).toUpperCase() + w.slice(1);
  return rng.chance(0.5) ? `${head} ${rng.pick(WORDS)}` : head;
}
export const personName = (rng: Rng) => `${rng.pick(FIRST)} ${rng.pick(LAST)}`;

/** Spread of the runners' log chances: the real race's opening prices (3.4 to 41) have ~0.9. */
const STRENGTH_SPREAD = 0.9;

/**
 * Emergencies (not measured: neither real payload lists one): acceptances name one or two emergencies,
 * the last numbers of a full thoroughbred field (12 or more), in 30 % of such fields: ~40 races a day,
 * so every simulated day has some. Drawn from a stream of their own, so the field's draws stay as they were.
 */
const EMERGENCY_MIN_FIELD = 12;
const EMERGENCY_RATE = 0.3;
function emergencyCount(seed: number, race: RaceStatic, size: number): number {
  const rng = rngFor(seed, 'emergencies', race.id);
  if (race.meeting.category !== 'T' || size < EMERGENCY_MIN_FIELD || !rng.chance(EMERGENCY_RATE)) return 0;
  return rng.chance(0.5) ? 1 : 2;
}

export function buildField(seed: number, race: RaceStatic): RunnerStatic[] {
  const rng = rngFor(seed, 'field', race.id);
  const code = race.meeting.category;
  const size = code === 'G' ? 8 : code === 'H' ? rng.int(8, 14) : rng.int(6, 16);
  const strengths = Array.from({ length: size }, () => Math.exp(rng.normal() * STRENGTH_SPREAD));
  const total = strengths.reduce((a, b) => a + b, 0);
  const barriers = rng.shuffle(Array.from({ length: size }, (_, i) => i + 1));
  const firstEmergency = size - emergencyCount(seed, race, size);
  return strengths.map((w, i) => ({
    entrantId: rng.uuid(),
    horseId: rng.int(100_000, 9_999_999),
    number: i + 1,
    barrier: code === 'G' ? i + 1 : (barriers[i] as number),
    name: horseName(rng),
    jockey: code === 'G' ? '' : personName(rng),
    trainer: personName(rng),
    weight: code === 'G' ? Math.round(rng.range(26, 36) * 10) / 10 : code === 'H' ? 0 : rng.int(54, 61),
    form: Array.from({ length: rng.int(1, 5) }, () => rng.pick([...'1234567890x'])).join(''),
    strength: w / total,
    openWin: ladder(total / (w * OPEN_BOOK)),
    silk: drawSilk(rng),
    emergency: i >= firstEmergency ? i - firstEmergency + 1 : null,
  }));
}
