/**
 * Derives the simulator's measured data from the real payloads (run once, by hand, when they change):
 *
 *   npx tsx src/simulator/derive-data.ts /work/shared/fixtures/real
 *
 * Writes into src/simulator/data/:
 * - jumps.json: actual minus advertised start (s) of every race of the real races list, by region (North
 *   America, elsewhere), joined to the day's meetings for the country. Entries without a race number are
 *   not races (a meeting-level market with a start hours off) and are left out.
 * - form.json: the long runner members of the real /events payload (last starts, win history, picks) as
 *   templates, and how many last starts each real runner had.
 * - meetings.json: per meeting of the timetable (same order), the members the real list adds beyond the
 *   nine every meeting has (tote meetings: video channels, quaddies, doubles and trebles, tote number and
 *   status), their static values, and whether its race summaries carry tote_start_time.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

type Rec = Record<string, unknown>;
const dir = process.argv[2];
if (!dir) {
  console.error('usage: derive-data.ts <dir with the real fixtures>');
  process.exit(1);
}
const load = (name: string) => JSON.parse(readFileSync(join(dir, name), 'utf8')) as { data: Rec };
const out = (name: string, value: unknown) =>
  writeFileSync(new URL(`./data/${name}`, import.meta.url), `${JSON.stringify(value)}\n`);

const BASE_KEYS = new Set([
  'meeting',
  'name',
  'date',
  'track_condition',
  'category',
  'category_name',
  'country',
  'state',
  'races',
]);
const day = load('meetings-day.json').data.meetings as Rec[];
out(
  'meetings.json',
  day.map((m) => {
    const extra = Object.keys(m).filter((k) => !BASE_KEYS.has(k));
    const fixed = [
      'video_channels',
      'quaddie',
      'early_quaddie',
      'tote_running_double',
      'tote_treble',
      'tote_meeting_number',
    ];
    return {
      name: m.name,
      extra,
      values: Object.fromEntries(fixed.filter((k) => k in m).map((k) => [k, m[k]])),
      toteStartTime: (m.races as Rec[]).some((r) => 'tote_start_time' in r),
    };
  }),
);

const countryOf = new Map<string, string>();
for (const m of day) {
  for (const r of m.races as Rec[]) countryOf.set(r.id as string, m.country as string);
}
const NORTH_AMERICA = new Set(['USA', 'CA']);
const jumps = { northAmerica: [] as number[], elsewhere: [] as number[] };
for (const r of load('races-list.json').data.races as Rec[]) {
  if (typeof r.number !== 'number') continue;
  const delay = (Date.parse(r.actual_start as string) - Date.parse(r.advertised_start as string)) / 1000;
  const group = NORTH_AMERICA.has(countryOf.get(r.id as string) ?? '') ? 'northAmerica' : 'elsewhere';
  jumps[group].push(delay);
}
for (const list of Object.values(jumps)) list.sort((a, b) => a - b);
out('jumps.json', { source: 'races-list.json 2025-07-17 00:00-03:19 UTC', ...jumps });

const runners = load('event-final-awapuni.json').data.runners as Rec[];
out('form.json', {
  lastStarts: runners.flatMap((r) => (r.last_starts as Rec[] | null) ?? []),
  lastStartsCounts: runners.map((r) => ((r.last_starts as unknown[] | null) ?? []).length),
  winHistory: runners.flatMap((r) => (r.runner_win_history as Rec[] | undefined) ?? []),
  picks: runners.flatMap((r) => (r.picks as Rec[] | null | undefined) ?? []),
});
console.log(`jumps: ${jumps.northAmerica.length} North American, ${jumps.elsewhere.length} elsewhere`);
