/**
 * The static part of a runner's ~90-member record, from the real runner record as a template: the long
 * members (last_starts, runner_win_history, picks) are drawn from the real ones with this runner's names,
 * dates and numbers, so records have the real members, order and size (the real runners carry 3-32 last
 * starts of ~750 bytes each; their records are 8-31 KB, 15.2 KB on average). Built per race and kept for
 * the most recently used races only.
 */
import { DAY, ladder } from './changes.js';
import { formTemplates, templates } from './data.js';
import { horseName, personName } from './field.js';
import type { RaceStatic, RunnerStatic } from './model.js';
import { type Rng, rngFor } from './rng.js';
import { describeSilk } from './silks.js';

const CACHE_RACES = 64;
const cache = new Map<string, Record<string, unknown>[]>();

const ddmmyyyy = (ms: number) => {
  const d = new Date(ms);
  return `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;
};

function lastStarts(rng: Rng, r: RunnerStatic, raceDay: number, count: number): Record<string, string>[] {
  let day = raceDay;
  return Array.from({ length: count }, () => {
    const days = rng.int(7, 60);
    day -= days * DAY;
    const field = rng.int(6, 16);
    const finish = rng.int(1, field);
    const winner = finish === 1 ? r.name : horseName(rng);
    return {
      ...rng.pick(formTemplates.lastStarts),
      barrier: String(rng.int(1, field)),
      days_since: String(days),
      finish: String(finish),
      jockey: personName(rng),
      number_of_runners: String(field),
      number: String(rng.int(1, field)),
      second: finish === 2 ? r.name : horseName(rng),
      third: finish === 3 ? r.name : horseName(rng),
      winner,
      starting_price: ladder(Math.exp(rng.range(0.5, 4))).toFixed(2),
      date: ddmmyyyy(day),
    };
  });
}

function build(seed: number, race: RaceStatic, r: RunnerStatic): Record<string, unknown> {
  const rng = rngFor(seed, 'form', r.entrantId);
  const code = race.meeting.category;
  const starts = rng.pick(formTemplates.lastStartsCounts);
  const runs = Math.max(1, starts - rng.int(0, 6));
  const wins = rng.chance(0.45) ? rng.int(1, Math.max(1, Math.floor(runs / 5))) : 0;
  const overall = { ...(templates.runner.overall as object), number_of_starts: runs, number_of_wins: wins };
  const record: Record<string, unknown> = {
    ...templates.runner,
    entrant_id: r.entrantId,
    name: r.name,
    barrier: r.barrier,
    runner_number: r.number,
    runner_change: rng.chance(0.4)
      ? { [ddmmyyyy(race.advertisedStart - rng.int(100, 900) * DAY)]: 'Gelding' }
      : null,
    silk_colours: describeSilk(r.silk),
    jockey: r.jockey,
    owners: `${personName(rng)} & ${personName(rng)}`,
    country: race.meeting.country,
    trainer_name: r.trainer,
    last_twenty_starts: r.form,
    sire: horseName(rng),
    dam: horseName(rng),
    weight: code === 'H' ? null : { allocated: String(r.weight), total: String(r.weight) },
    speedmap: { ...(templates.runner.speedmap as object), entrant_id: r.entrantId },
    overall,
    last_starts: lastStarts(rng, r, race.advertisedStart, starts),
    horse_id: r.horseId,
    runner_win_history: Array.from({ length: wins }, () => rng.pick(formTemplates.winHistory)),
    picks: Array.from({ length: rng.int(1, 3) }, () => rng.pick(formTemplates.picks)),
    ...(code === 'G' ? { best_time: '30.12', predictors: [] } : {}),
    ...(code === 'H' ? { barrier_position: `Fr${r.barrier}` } : {}),
  };
  record.age = rng.int(2, 9);
  record.breeding = `${record.age}  ${record.sire}-${record.dam}`;
  // As in the real field: no win history without a win, and no picks for a quarter of the runners.
  if (wins === 0) delete record.runner_win_history;
  if (rng.chance(0.25)) delete record.picks;
  return record;
}

/** The static records of a race's runners, in runner order. */
export function staticRunners(seed: number, race: RaceStatic): Record<string, unknown>[] {
  const key = `${seed}|${race.id}`;
  let records = cache.get(key);
  if (records) {
    cache.delete(key);
  } else {
    records = race.runners.map((r) => build(seed, race, r));
    if (cache.size >= CACHE_RACES) cache.delete(cache.keys().next().value as string);
  }
  cache.set(key, records);
  return records;
}
