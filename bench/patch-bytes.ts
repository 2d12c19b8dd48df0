/**
 * Patch size against the full payload for typical changes on the real 195 KB Awapuni payload, with
 * racewire's keyed documents and, for comparison, fast-json-patch on the raw payload (arrays by index).
 * Run: npx tsx bench/patch-bytes.ts
 */
import { readFileSync } from 'node:fs';
import { arch, cpus, platform, release } from 'node:os';
import fjp from 'fast-json-patch';
import { eventResponseSchema } from '../src/upstream/schemas.js';
import { diffDocuments } from '../src/watch/track/diff.js';
import { normaliseEvent } from '../src/watch/track/normalise.js';

// biome-ignore lint/suspicious/noExplicitAny: scripted edits on a loose payload
type Loose = any;
const text = readFileSync(
  new URL('../test/fixtures/watch/event-final-awapuni.json', import.meta.url),
  'utf8',
);
const real = JSON.parse(text);

/** The real race before the jump: Open, no results or dividends. */
const open = structuredClone(real);
Object.assign(open.data.race, { status: 'Open', actual_start: 0 });
open.data.results = [];
open.data.dividends = [];

const edit = (base: Loose, fn: (d: Loose) => void) => {
  const copy = structuredClone(base);
  fn(copy.data);
  return copy;
};
const byNumber = (d: Loose, n: number) => d.runners.find((r: Loose) => r.runner_number === n);

const scenarios: [string, Loose, Loose][] = [
  [
    'odds move (one fixed price + its fluc)',
    open,
    edit(open, (d) => {
      const r = byNumber(d, 1);
      r.odds.fixed_win = 4.4;
      r.flucs.push(4.4);
      r.flucs_with_timestamp.last_six.push({ timestamp: '2025-07-17T00:49:00.000000000Z', fluc: 4.4 });
    }),
  ],
  [
    'market tick (pool prices of every runner)',
    open,
    edit(open, (d) => {
      for (const r of d.runners) r.odds.pool_win = Math.round(r.odds.pool_win * 105) / 100;
    }),
  ],
  [
    'full fluc window slides (6 -> 6)',
    edit(open, (d) => {
      const r = byNumber(d, 1);
      r.flucs = [9, 8.5, 8, 7, 6, 5];
    }),
    edit(open, (d) => {
      const r = byNumber(d, 1);
      r.flucs = [8.5, 8, 7, 6, 5, 4.4];
    }),
  ],
  [
    'scratching',
    open,
    edit(open, (d) => {
      Object.assign(byNumber(d, 8), { is_scratched: true, scratch_time: 1752706200 });
    }),
  ],
  [
    'interim results',
    open,
    edit(open, (d) => {
      d.race.status = 'Interim';
      d.race.actual_start = real.data.race.actual_start;
      d.results = real.data.results;
    }),
  ],
  [
    'final dividends beside interim ones',
    edit(real, (d) => {
      d.dividends = d.dividends.filter((x: Loose) => x.status === 'Interim');
    }),
    real,
  ],
  ['runners re-ordered', real, edit(real, (d) => d.runners.reverse())],
];

const bytes = (x: unknown) => JSON.stringify(x).length;
const payloadBytes = text.length;
const keyedDoc = (p: Loose) => normaliseEvent(eventResponseSchema.parse(p));

console.log(`racewire patch bytes: ${new Date().toISOString()}`);
console.log(`node ${process.version} ${platform()} ${release()} ${arch()}, ${cpus()[0]?.model ?? 'cpu'}`);
console.log(
  `full payload (minified): ${payloadBytes} bytes; normalised document: ${bytes(keyedDoc(real))} bytes\n`,
);
console.log('| change | keyed ops | keyed bytes | % of payload | index-based ops | index-based bytes |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [name, a, b] of scenarios) {
  const keyed = diffDocuments(keyedDoc(a), keyedDoc(b));
  const indexed = fjp.compare(a.data, b.data);
  const kb = keyed.length ? bytes(keyed) : 0;
  const ib = indexed.length ? bytes(indexed) : 0;
  console.log(
    `| ${name} | ${keyed.length} | ${kb} | ${((kb / payloadBytes) * 100).toFixed(3)} % | ${indexed.length} | ${ib} |`,
  );
}
