/**
 * Cost of one tracked payload: parse + validate + normalise + diff (+ snapshot check) + detect, on the real
 * 195 KB Awapuni payload with a small change (one runner's fixed win price and a new fluc), alternating
 * between two versions so every iteration is a real change, then the durable append to a SQLite log in a
 * temporary file. Prints median and p95 per payload and each step's share, and the cost of the
 * unchanged-payload check (`dataDigest`) that answers a repeated payload instead of all of these steps, and
 * the tracker's whole pure step (`trackRace`) on the parsed payload, as the race pipeline calls it.
 * Run: npx tsx bench/pipeline-cost.ts [iterations]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { arch, cpus, platform, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSqliteEventLog, openDatabase } from '../src/store/index.js';
import { dataDigest } from '../src/upstream/data-digest.js';
import { eventResponseSchema } from '../src/upstream/schemas.js';
import { detectEvents } from '../src/watch/detect/detect.js';
import { diffDocuments, shouldSnapshot } from '../src/watch/track/diff.js';
import { assessPayload, normaliseEvent, type RaceDocument } from '../src/watch/track/normalise.js';
import { resumedState, trackRace } from '../src/watch/track/track-race.js';

const ITERATIONS = Number(process.argv[2] ?? 2000);
const WARMUP = 300;

const text = readFileSync(
  new URL('../test/fixtures/watch/event-final-awapuni.json', import.meta.url),
  'utf8',
);
const raw = JSON.parse(text);
const changed = structuredClone(raw);
const r = changed.data.runners[0];
r.odds.fixed_win = 4.4;
r.flucs.push(4.4);
r.flucs_with_timestamp.last_six.push({ timestamp: '2025-07-17T00:53:00.000000000Z', fluc: 4.4 });
const texts = [text, JSON.stringify(changed)];

const STEPS = ['parse', 'validate', 'normalise', 'diff', 'snapshot check', 'detect', 'append'] as const;
const dir = mkdtempSync(join(tmpdir(), 'racewire-pipeline-'));
const db = openDatabase(join(dir, 'racewire.db'));
const log = createSqliteEventLog({ db, window: 5000 });
type Step = (typeof STEPS)[number];

let prev: RaceDocument = normaliseEvent(eventResponseSchema.parse(JSON.parse(texts[1]!)));
await log.append('r1', { entries: [{ kind: 'snapshot', document: prev }], document: prev, now: new Date() });
const totals: number[] = [];
/** The whole pure tracker step (`trackRace`: assess, normalise, trust, diff, detect) on a parsed payload. */
const tracker: number[] = [];
const perStep: Record<Step, number[]> = Object.fromEntries(STEPS.map((s) => [s, []])) as never;
let sink = 0;

for (let i = 0; i < WARMUP + ITERATIONS; i++) {
  const t0 = performance.now();
  const json = JSON.parse(texts[i % 2]!);
  const t1 = performance.now();
  const payload = eventResponseSchema.parse(json);
  const t2 = performance.now();
  if (!assessPayload(payload, { prev }).ok) throw new Error('rejected');
  const next = normaliseEvent(payload);
  const t3 = performance.now();
  const ops = diffDocuments(prev, next);
  const t4 = performance.now();
  const snap = shouldSnapshot(ops, next);
  const t5 = performance.now();
  const events = detectEvents(prev, next);
  const t6 = performance.now();
  // The pipeline's own entries (the step above is timed apart; trackRace repeats it for the append's input).
  const tracked = trackRace(resumedState(prev), payload, Date.now());
  const t6b = performance.now();
  if (tracked.outcome.kind === 'changed' && tracked.state) {
    await log.append('r1', { entries: tracked.entries, document: tracked.state.document, now: new Date() });
  }
  const t7 = performance.now();
  sink += ops.length + events.events.length + (snap ? 1 : 0);
  prev = next;
  if (i < WARMUP) continue;
  totals.push(t6 - t0 + (t7 - t6b));
  tracker.push(t6b - t6);
  const times = [t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t6 - t5, t7 - t6b];
  STEPS.forEach((s, k) => {
    perStep[s].push(times[k]!);
  });
}

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const quantile = (xs: number[], q: number) => sorted(xs)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const totalMean = mean(totals);

console.log(`racewire pipeline cost: ${new Date().toISOString()}`);
console.log(
  `node ${process.version} ${platform()} ${release()} ${arch()}, ${cpus()[0]?.model ?? 'cpu'} x${cpus().length}`,
);
console.log(`payload ${text.length} bytes, ${ITERATIONS} iterations (after ${WARMUP} warm-up), sink ${sink}`);
console.log(
  `total per payload: median ${quantile(totals, 0.5).toFixed(3)} ms, p95 ${quantile(totals, 0.95).toFixed(3)} ms, mean ${totalMean.toFixed(3)} ms`,
);
for (const s of STEPS) {
  const xs = perStep[s];
  console.log(
    `  ${s.padEnd(15)} median ${quantile(xs, 0.5).toFixed(3)} ms  p95 ${quantile(xs, 0.95).toFixed(3)} ms  share ${((mean(xs) / totalMean) * 100).toFixed(1)} %`,
  );
}

console.log(
  `tracker step (trackRace on the parsed payload): median ${quantile(tracker, 0.5).toFixed(3)} ms  p95 ${quantile(tracker, 0.95).toFixed(3)} ms`,
);

const digests: number[] = [];
for (let i = 0; i < WARMUP + ITERATIONS; i++) {
  const t0 = performance.now();
  sink += dataDigest(texts[i % 2]!)!.length;
  if (i >= WARMUP) digests.push(performance.now() - t0);
}
console.log(
  `unchanged-payload check (dataDigest): median ${quantile(digests, 0.5).toFixed(3)} ms  p95 ${quantile(digests, 0.95).toFixed(3)} ms (sink ${sink})`,
);
await log.close();
db.close();
rmSync(dir, { recursive: true, force: true });
