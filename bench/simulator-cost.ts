/**
 * What the simulator costs (issue 11): building its three-day world, listing three days of meetings, a
 * race's first /events payload (field, story and payload built) and a repeat of it, the journal of a day.
 * Each measure is repeated on fresh simulators, interleaved, and reported as a median of wall time.
 *
 *   npx tsx bench/simulator-cost.ts [--runs 7]
 */
import { pino } from 'pino';
import { createSimulator } from '../src/simulator/index.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const RUNS = Number(args.get('runs') ?? 7);
const DAY = '2026-11-22';
const API = '/affiliates/v1/racing';

const samples = new Map<string, number[]>();
const time = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
  const t = performance.now();
  const out = await fn();
  samples.set(name, [...(samples.get(name) ?? []), performance.now() - t]);
  return out;
};

for (let run = 0; run < RUNS; run++) {
  let now = Date.parse(`${DAY}T06:00:00Z`);
  const clock = { now: () => now, sleep: () => new Promise<void>(() => {}) };
  const sim = await time('create (3-day world, 2244 races, no fields)', () =>
    createSimulator({ seed: run + 1, clock, day: DAY, rateLimit: false, logger: pino({ level: 'silent' }) }),
  );
  const get = (url: string) => sim.app.inject({ method: 'GET', url: `${API}${url}` });
  for (const label of ['first', 'repeat']) {
    await time(`/meetings, 3 days in 2 pages (${label})`, async () => {
      await get('/meetings?date_from=2026-11-21&date_to=2026-11-23&limit=200');
      await get('/meetings?date_from=2026-11-21&date_to=2026-11-23&limit=200&offset=200');
    });
  }
  const races = sim.world.races
    .filter((r) => r.meeting.dayKey === DAY && !r.abandoned)
    .slice(run * 20, run * 20 + 20);
  now = Date.parse(`${DAY}T12:00:00Z`);
  const all =
    '?with_money_tracker=true&with_will_pays=true&with_tote_trends_data=true&with_big_bets=true&with_live_bets=true';
  await time('/events x20, first time (field, story, bets, payload)', async () => {
    for (const r of races) await get(`/events/${r.id}${all}`);
  });
  await time('/events x20, unchanged (cached data)', async () => {
    for (const r of races) await get(`/events/${r.id}${all}`);
  });
  await time('journal of the configured day (all 748 stories built)', () =>
    sim.world.journal(Date.parse('2026-11-23T00:00:00Z')),
  );
  await sim.close();
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(`simulator cost: ${RUNS} runs, median wall time; node ${process.version}`);
console.log('| measure | median | min | max |');
console.log('|---|---|---|---|');
for (const [name, xs] of samples) {
  console.log(
    `| ${name} | ${median(xs).toFixed(1)} ms | ${Math.min(...xs).toFixed(1)} ms | ${Math.max(...xs).toFixed(1)} ms |`,
  );
}
