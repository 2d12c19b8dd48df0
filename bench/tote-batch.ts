/**
 * The tote's price moves (issue 23): what one tote tick weighs as events on the real Awapuni race, one
 * `odds.changed` per runner and pool (protocol 2) against one `odds.pools_changed` (protocol 3), and how the
 * simulator's tote moves its prices tick to tick (the share of pool prices that change, and move by 10 % or
 * more, per tick band), beside the one thing the real payload shows of pool prices: their spread around the
 * fixed odds at the close. Pure, no I/O beyond the fixture; seconds of CPU.
 *   npx tsx bench/tote-batch.ts
 */
import { readFileSync } from 'node:fs';
import type { PoolsChangedData } from '@racewire/client/protocol';
import { poolPrices, toteTick } from '../src/simulator/tote.js';
import { eventResponseSchema } from '../src/upstream/schemas.js';
import { raceContext } from '../src/watch/detect/detect-context.js';
import { detectOddsChanges } from '../src/watch/detect/detect-odds.js';
import { normaliseEvent } from '../src/watch/track/normalise.js';

// biome-ignore lint/suspicious/noExplicitAny: scripted edits on a loose payload
type Loose = any;
const real = eventResponseSchema.parse(
  JSON.parse(
    readFileSync(new URL('../test/fixtures/watch/event-final-awapuni.json', import.meta.url), 'utf8'),
  ),
);

// 1. One tick: every pool win price 5 % shorter, every pool place 0.1 longer (16 changes on 8 runners).
const ticked = structuredClone(real);
for (const r of ticked.data.runners as Loose[]) {
  r.odds.pool_win = Math.round(r.odds.pool_win * 9.5) / 10;
  r.odds.pool_place = Math.round((r.odds.pool_place + 0.1) * 10) / 10;
}
const next = normaliseEvent(ticked);
const [batch] = detectOddsChanges(normaliseEvent(real), next, raceContext(next), {});
const race = (batch!.data as PoolsChangedData).race;
const stream = race.raceId;
const envelope = (type: string, data: unknown, seq: number) =>
  JSON.stringify({
    id: `${stream}:${seq}@k3j2h1`,
    type,
    timestamp: '2025-07-17T00:48:47.120Z',
    stream,
    seq,
    meetingId: race.meetingId,
    raceId: stream,
    data,
  }).length;
const changes = (batch!.data as PoolsChangedData).changes;
const batched = envelope('odds.pools_changed', batch!.data, 42);
const perRunner = changes.reduce((sum, c, i) => sum + envelope('odds.changed', { race, ...c }, 42 + i), 0);
console.log(
  `one tote tick, ${changes.length} changes: ${changes.length} odds.changed ${perRunner} B (${Math.round(perRunner / changes.length)} B each); one odds.pools_changed ${batched} B (${((batched / perRunner) * 100).toFixed(0)} %)`,
);

// 2. The real close: log(pool win / fixed win) per runner, the noise the simulator's tote is fitted to.
const logs = (real.data.runners as Loose[]).map((r) => Math.log(r.odds.pool_win / r.odds.fixed_win));
const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / logs.length);
console.log(`real close: sd of log(pool_win / fixed_win) over ${logs.length} runners ${sd.toFixed(3)}`);

// 3. The simulator's tote over the 6 h it is open, 20 seeds of the real race's fixed prices.
const fixed = (real.data.runners as Loose[]).map((r) => r.odds.fixed_win as number);
const start = Date.parse('2026-11-22T03:00:00Z');
const bands = new Map<string, { n: number; changed: number; significant: number }>();
for (let seed = 1; seed <= 20; seed++) {
  const sim = { id: `race-${seed}`, runners: fixed.map((_, i) => ({ entrantId: `e${i}` })) } as never;
  const runners = new Map(fixed.map((f, i) => [`e${i}`, { fixedWin: f, scratchedAt: null }])) as never;
  let prev: ReturnType<typeof poolPrices> | undefined;
  let last: number | null = null;
  for (let t = start - 6 * 3_600_000; t <= start; t += 5_000) {
    const tick = toteTick(t, start, null);
    if (tick === null || tick === last) continue;
    last = tick;
    const now = poolPrices(seed, sim, runners, start, tick);
    const out = start - tick;
    const band =
      out > 3_600_000 ? '6 h-60 min out, 5-min ticks' : out > 600_000 ? '60-10 min, 1-min' : '10-0 min, 15-s';
    const b = bands.get(band) ?? { n: 0, changed: 0, significant: 0 };
    bands.set(band, b);
    for (const [id, p] of now) {
      for (const m of ['win', 'place'] as const) {
        const from = prev?.get(id)?.[m];
        if (from === undefined) continue;
        b.n++;
        if (from === p[m]) continue;
        b.changed++;
        if (Math.abs((p[m] - from) / from) >= 0.1) b.significant++;
      }
    }
    prev = now;
  }
}
for (const [band, b] of bands) {
  const pct = (x: number) => `${((x / b.n) * 100).toFixed(1)} %`;
  console.log(
    `simulator ${band}: ${b.n} prices, changed ${pct(b.changed)}, moved 10 % or more ${pct(b.significant)}`,
  );
}
