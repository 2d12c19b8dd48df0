/**
 * What one /events request costs on each side of the racing API (issue 23's soak: per request, not per
 * event): the simulator building the payload when its race changed (a new tote tick) and serving it from its
 * cache, fastify's inject, and the client's digest, JSON.parse and validation (schemas.ts, rows screened).
 * Payloads are the simulator's own, with every optional member racewire asks for near the jump. Median of
 * wall time over the races, repeated `--runs` times.
 *
 *   npx tsx bench/upstream-cost.ts [--runs 5]
 */
import { pino } from 'pino';
import { createSimulator } from '../src/simulator/index.js';
import { dataDigest } from '../src/upstream/data-digest.js';
import { eventResponseSchema } from '../src/upstream/schemas.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const RUNS = Number(args.get('runs') ?? 5);
const DAY = '2026-11-22';
const API = '/affiliates/v1/racing';
const ALL =
  '?with_money_tracker=true&with_will_pays=true&with_tote_trends_data=true&with_big_bets=true&with_live_bets=true&with_biggest_bet=true';

const samples = new Map<string, number[]>();
const time = async <T>(name: string, fn: () => Promise<T> | T): Promise<T> => {
  const t = performance.now();
  const out = await fn();
  samples.set(name, [...(samples.get(name) ?? []), performance.now() - t]);
  return out;
};

let now = Date.parse(`${DAY}T06:00:00Z`);
const clock = { now: () => now, sleep: () => new Promise<void>(() => {}) };
const sim = await createSimulator({
  seed: 1,
  clock,
  day: DAY,
  rateLimit: false,
  logger: pino({ level: 'silent' }),
});
const races = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned).slice(0, 40);
let bytes = 0;
for (let run = 0; run < RUNS; run++) {
  for (const r of races) {
    // Two minutes before the race's jump: the market is open, the tote moving, bets placed.
    now = r.advertisedStart - 120_000 + run * 1_000;
    const url = `${API}/events/${r.id}${ALL}`;
    await time('simulator: /events, payload rebuilt (inject)', () => sim.app.inject({ method: 'GET', url }));
    const res = await time('simulator: /events, same tick from its cache (inject)', () =>
      sim.app.inject({ method: 'GET', url }),
    );
    if (res.statusCode !== 200) throw new Error(`${r.id}: ${res.statusCode} ${res.body.slice(0, 200)}`);
    const text = res.body;
    bytes += text.length;
    await time('client: data digest', () => dataDigest(text));
    const body = await time('client: JSON.parse', () => JSON.parse(text) as unknown);
    const parsed = await time('client: validate (schema, rows screened)', () =>
      eventResponseSchema.safeParse(body),
    );
    if (!parsed.success) throw new Error(`${r.id}: ${parsed.error.message}`);
  }
}
await sim.close();

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
console.log(
  `upstream cost: ${races.length} races x ${RUNS} runs, payload ${Math.round(bytes / (races.length * RUNS) / 1000)} KB on average; node ${process.version}`,
);
console.log('| measure | median | min | max |');
console.log('|---|---|---|---|');
for (const [name, xs] of samples) {
  console.log(
    `| ${name} | ${median(xs).toFixed(2)} ms | ${Math.min(...xs).toFixed(2)} ms | ${Math.max(...xs).toFixed(2)} ms |`,
  );
}
