/**
 * What the market data costs (docs/benchmarks.md#market-data): the simulator's /events payloads of many
 * races through their hot window (the last 30 minutes to the close), fetched every 15 s of race time
 * without and with the market options racewire asks for by default (with_big_bets, with_biggest_bet,
 * with_money_tracker), each run through the whole pure pipeline (parse, validate, assess, normalise, diff,
 * snapshot decision, detect with the market detectors and a money memory). Prints bytes per payload, bytes
 * per patch, pipeline time per payload and the market events found; then what re-ordered money tracker rows
 * cost as a patch, keyed by identity against arrays by index.
 * Run: npx tsx bench/market-data.ts [races]
 */
import { arch, cpus, platform, release } from 'node:os';
import fjp from 'fast-json-patch';
import type { Clock } from '../src/clock.js';
import { createSimulator } from '../src/simulator/index.js';
import { eventResponseSchema } from '../src/upstream/schemas.js';
import { detectEvents } from '../src/watch/detect/detect.js';
import { favouriteOf } from '../src/watch/detect/detect-odds.js';
import { DEFAULT_MARKET_THRESHOLDS } from '../src/watch/detect/market-thresholds.js';
import { EMPTY_MONEY } from '../src/watch/detect/money-flow.js';
import { diffDocuments, shouldSnapshot } from '../src/watch/track/diff.js';
import { assessPayload, normaliseEvent, type RaceDocument } from '../src/watch/track/normalise.js';

const RACES = Number(process.argv[2] ?? 40);
const DAY = '2026-11-22';
const API = '/affiliates/v1/racing';
const STEP = 15_000;
const WINDOW = 30 * 60_000;
const OPTIONS = 'with_big_bets=true&with_biggest_bet=true&with_money_tracker=true';

let t = Date.parse(`${DAY}T00:00:00Z`);
const clock: Clock = { now: () => t, sleep: async () => {} };
const sim = await createSimulator({ seed: 1, clock, day: DAY, rateLimit: false });
const races = sim.world.races
  .filter((r) => r.meeting.dayKey === DAY && !r.abandoned && r.runners.length >= 8)
  .slice(0, RACES);

interface Run {
  payloadBytes: number[];
  patchBytes: number[];
  pipelineMs: number[];
  events: Map<string, number>;
}
const run = (): Run => ({ payloadBytes: [], patchBytes: [], pipelineMs: [], events: new Map() });
const plain = run();
const market = run();
let reorderSample: unknown;

for (const race of races) {
  const close = sim.world.lifecycle(race.id).closeAt;
  for (const [query, into] of [
    ['enc=json', plain],
    [`enc=json&${OPTIONS}`, market],
  ] as const) {
    let prev: RaceDocument | undefined;
    let money = EMPTY_MONEY;
    for (t = close - WINDOW; t <= close; t += STEP) {
      const res = await sim.app.inject({ method: 'GET', url: `${API}/events/${race.id}?${query}` });
      const text = res.body;
      const t0 = performance.now();
      const payload = eventResponseSchema.parse(JSON.parse(text));
      if (!assessPayload(payload, { prev }).ok) throw new Error('rejected');
      const next = normaliseEvent(payload);
      const ops = prev ? diffDocuments(prev, next) : [];
      const snap = prev ? shouldSnapshot(ops, next) : true;
      const detected = prev
        ? detectEvents(
            prev,
            next,
            { observedAt: t, market: { thresholds: DEFAULT_MARKET_THRESHOLDS } },
            { favourite: favouriteOf(prev)?.key ?? null, money },
          )
        : { events: [], money };
      const events = detected.events;
      money = detected.money ?? money;
      const ms = performance.now() - t0;
      into.payloadBytes.push(text.length);
      into.pipelineMs.push(ms);
      if (prev && ops.length > 0 && !snap) into.patchBytes.push(JSON.stringify(ops).length);
      for (const e of events) into.events.set(e.type, (into.events.get(e.type) ?? 0) + 1);
      if (into === market && t + STEP > close && !reorderSample) reorderSample = JSON.parse(text);
      prev = next;
    }
  }
}
await sim.close();

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const q = (xs: number[], p: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const line = (name: string, r: Run) =>
  console.log(
    `${name.padEnd(8)} payload median ${kb(q(r.payloadBytes, 0.5))} p95 ${kb(q(r.payloadBytes, 0.95))} | ` +
      `patch median ${q(r.patchBytes, 0.5)} B p95 ${q(r.patchBytes, 0.95)} B (${r.patchBytes.length} patches) | ` +
      `pipeline median ${q(r.pipelineMs, 0.5).toFixed(3)} ms p95 ${q(r.pipelineMs, 0.95).toFixed(3)} ms`,
  );

console.log(`racewire market data cost: ${new Date().toISOString()}`);
console.log(
  `node ${process.version} ${platform()} ${release()} ${arch()}, ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}`,
);
console.log(
  `${races.length} races, a payload every ${STEP / 1000} s of race time over the last ${WINDOW / 60_000} min to the close (${plain.payloadBytes.length} payloads each way)`,
);
line('without', plain);
line('with', market);
const typesOf = (r: Run) => [...r.events].map(([k, v]) => `${k} ${v}`).join(', ');
console.log(`events without the options: ${typesOf(plain) || 'none'}`);
console.log(`events with the options:    ${typesOf(market) || 'none'}`);

// Money tracker rows re-ordered upstream (rows of different entrants swapped; each entrant's own rows keep
// their order): racewire's document groups them by entrant_id, fast-json-patch on the raw arrays does not.
// biome-ignore lint/suspicious/noExplicitAny: a loose payload
const base = reorderSample as any;
const rows = base.data.money_tracker.entrants as { entrant_id: string }[];
const byEntrant = new Map<string, typeof rows>();
for (const row of rows) byEntrant.set(row.entrant_id, [...(byEntrant.get(row.entrant_id) ?? []), row]);
const reordered = structuredClone(base);
reordered.data.money_tracker.entrants = [...byEntrant.values()].reverse().flat();
const keyed = diffDocuments(
  normaliseEvent(eventResponseSchema.parse(base)),
  normaliseEvent(eventResponseSchema.parse(reordered)),
);
const raw = fjp.compare(base.data.money_tracker, reordered.data.money_tracker);
console.log(
  `money tracker of ${rows.length} rows re-ordered: keyed by entrant ${keyed.length} ops (${JSON.stringify(keyed).length} B), by index ${raw.length} ops (${JSON.stringify(raw).length} B)`,
);
