/**
 * The simulator against the real payloads (issues 11 and 22): every statistic the simulator tests hold it to,
 * real beside simulated, computed by the same functions the tests use (test/simulator/real-data.ts and
 * sim-stats.ts). The figures in docs/simulator.md come from this script.
 *
 *   npx tsx bench/simulator-fidelity.ts [--seed 1]
 */
import { pino } from 'pino';
import { betRecord } from '../src/simulator/bet-record.js';
import { PARTIAL_RESULTS } from '../src/simulator/event-payload.js';
import { createSimulator } from '../src/simulator/index.js';
import {
  bookOf,
  bytes,
  interleaving,
  mean,
  moneyFigures,
  moneyOf,
  quantile,
  realEvent,
  realJumps,
  realMarket,
  realMeetings,
  SECOND_REAL_FINAL,
  share,
  sizeFigures,
} from '../test/simulator/real-data.js';
import { eventsAt, likeTheRealRace, REAL_OPTIONS, simJumps, simMarket } from '../test/simulator/sim-stats.js';

const at = process.argv.indexOf('--seed');
const seed = at > 0 ? Number(process.argv[at + 1]) : 1;
const DAY = '2026-11-22';
let now = Date.parse(`${DAY}T00:00:00Z`);
const clock = { now: () => now, sleep: () => new Promise<void>(() => {}), set: (t: number) => (now = t) };
const sim = await createSimulator({
  seed,
  clock,
  day: DAY,
  rateLimit: false,
  logger: pino({ level: 'silent' }),
});
const rows: [string, number, number, number?][] = [];
const row = (name: string, real: number, simulated: number, digits = 3) =>
  rows.push([name, real, simulated, digits]);

// The jump.
const real = realJumps();
// The real list covers 00:00-03:19 UTC of its day: over all regions, compare the same stretch of the timetable.
const from = Date.parse(`${DAY}T00:00:00Z`);
const simulated = {
  ...simJumps(sim.world),
  all: simJumps(
    sim.world,
    sim.world.races.filter((r) => r.advertisedStart >= from && r.advertisedStart <= from + 199 * 60_000),
  ).all,
};
for (const region of ['all', 'northAmerica', 'elsewhere'] as const) {
  row(`jump median (s), ${region}`, quantile(real[region], 0.5), quantile(simulated[region], 0.5), 0);
  row(`jump p90 (s), ${region}`, quantile(real[region], 0.9), quantile(simulated[region], 0.9), 0);
  row(
    `jump share over 150 s, ${region}`,
    share(real[region], (x) => x > 150),
    share(simulated[region], (x) => x > 150),
  );
}
row(
  'longest jump (s)',
  Math.max(...real.all),
  Math.max(...simulated.northAmerica, ...simulated.elsewhere),
  0,
);

// The market.
const day = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned);
const market = simMarket(sim.world, day);
const realM = realMarket();
for (const key of [
  'closingBook',
  'openingBook',
  'movesPerRunner',
  'last5',
  'in30',
  'moveSize',
  'bigMoves',
] as const) {
  row(`market ${key}`, realM[key], market[key]);
}
const closes = await eventsAt(
  sim,
  clock,
  day.slice(0, 60),
  (r) => sim.world.lifecycle(r.id).closeAt,
  'enc=json',
);
row(
  'pool-win book at the close',
  bookOf(realEvent().data, 'pool_win'),
  mean(closes.map((p) => bookOf(p.data, 'pool_win'))),
);

// Sizes and the money tracker, on Final 8-runner thoroughbred races with the real request's options.
const event = realEvent();
const payloads = await eventsAt(
  sim,
  clock,
  likeTheRealRace(sim.world, DAY).slice(0, 40),
  (r) => sim.world.lifecycle(r.id).finalAt + 60_000,
  REAL_OPTIONS,
);
const realSizes = sizeFigures([{ data: event.data, bytes: bytes(event) }]);
const sizes = sizeFigures(payloads);
for (const key of ['payload', 'runner', 'members', 'lastStartsShare', 'runnerRecordsShare'] as const) {
  row(`size ${key}`, realSizes[key], sizes[key], key === 'payload' || key === 'runner' ? 0 : 3);
}
const realMoney = moneyFigures([moneyOf(event.data)]);
const money = moneyFigures(payloads.map((p) => moneyOf(p.data)));
for (const key of ['rows', 'zeroRows', 'holdSum', 'betSum'] as const)
  row(`money tracker ${key}`, realMoney[key], money[key]);
row('money tracker foreign rows', mean(realMoney.foreignRows), mean(money.foreignRows));

// Protests: decided protests per race.
const realRaces = (realMeetings().data.meetings as { races: Record<string, unknown>[] }[]).flatMap(
  (m) => m.races,
);
const protests = sim.world.races.filter(
  (r) => !r.abandoned && sim.world.lifecycle(r.id).protest !== null,
).length;
row(
  'protests per race',
  share(realRaces, (r) => r.protest === true),
  protests / sim.world.races.length,
  4,
);

// Issue 22's real structures, at Final on every 8th race of the day (the second real payload's figures are
// typed in real-data.ts; Awapuni's are computed).
type Rec = Record<string, unknown>;
const ids = (list: unknown) => new Set((list as { entrant_id: string }[]).map((x) => x.entrant_id));
const finals = await eventsAt(
  sim,
  clock,
  day.filter((_, i) => i % 8 === 0),
  (r) => sim.world.lifecycle(r.id).finalAt,
  'enc=json',
);
const outsideTips = (d: Rec) => {
  const field = ids(d.runners);
  return (d.race as { tips: string[] }).tips.filter((id) => !field.has(id)).length;
};
row(
  'tips outside the field, of 6',
  mean([outsideTips(event.data), SECOND_REAL_FINAL.tipsOutsideField]),
  mean(finals.map((p) => outsideTips(p.data))),
);
row(
  'races whose mover is outside the field',
  1 / 2,
  share(finals, (p) => !ids(p.data.runners).has((p.data.mover as Rec).entrant_id as string)),
);
const starters = (d: Rec) => (d.runners as Rec[]).filter((r) => !r.is_scratched).length;
row(
  'Finals listing the top 4 only',
  1 / 2,
  share(
    finals.filter((p) => starters(p.data) > PARTIAL_RESULTS),
    (p) => (p.data.results as Rec[]).length < starters(p.data),
  ),
);
row(
  'dividend status runs over a random order',
  interleaving(event.data.dividends as { status: string }[]),
  mean(finals.map((p) => interleaving(p.data.dividends as { status: string }[]))),
);
const bets = day
  .filter((_, i) => i % 8 === 0)
  .flatMap((race) => sim.world.bets(race.id).map((b) => ({ race, bet: betRecord(race, b) })));
row(
  'bets with all legs selections null',
  SECOND_REAL_FINAL.selectionsNull / SECOND_REAL_FINAL.bets,
  share(bets, ({ bet }) => (bet.legs as { selections: unknown }[]).every((l) => l.selections === null)),
);
row(
  'bets with a leg on another race',
  SECOND_REAL_FINAL.otherRaceBets / SECOND_REAL_FINAL.bets,
  share(bets, ({ race, bet }) =>
    (bet.legs as { race: { race_number: number } }[]).some((l) => l.race.race_number !== race.raceNumber),
  ),
);
await sim.close();

console.log(`simulator fidelity, seed ${seed}: real (test/fixtures/real) beside simulated`);
console.log('| statistic | real | simulator |');
console.log('|---|---|---|');
for (const [name, r, s, digits] of rows)
  console.log(`| ${name} | ${r.toFixed(digits)} | ${s.toFixed(digits)} |`);
