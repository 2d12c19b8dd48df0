/**
 * What recording (RECORD_DIR) and replay cost, on the real 195 KB Awapuni payload: the time `record()` takes
 * on the caller's thread (all the poller ever waits for), the time to compress and write a batch, the bytes
 * per response on disk, and, reading the recording back through the replay store, the time per record and the
 * memory kept per distinct request. Each response differs from the last (one price, one fluc), as a live
 * race's do. Run: npx tsx bench/recording.ts [responses] [distinct requests]
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { arch, cpus, platform, release, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import type { RecordedExchange } from '../src/replay/exchange.js';
import { createRecorder } from '../src/replay/recorder.js';
import { readRecording, recordingFiles } from '../src/replay/recording-reader.js';
import { createReplayStore } from '../src/replay/replay-store.js';

const RESPONSES = Number(process.argv[2] ?? 3000);
const REQUESTS = Number(process.argv[3] ?? 750);
const T0 = Date.parse('2025-07-17T00:00:00Z');

const raw = (await import('../test/fixtures/watch/event-final-awapuni.json', { with: { type: 'json' } }))
  .default as {
  data: { runners: { odds: { fixed_win: number }; flucs: number[] }[] };
};

function body(i: number): string {
  const copy = structuredClone(raw);
  const runner = copy.data.runners[i % copy.data.runners.length]!;
  runner.odds.fixed_win = 2 + (i % 97) / 10;
  runner.flucs.push(runner.odds.fixed_win);
  return JSON.stringify(copy);
}

const exchanges: RecordedExchange[] = Array.from({ length: RESPONSES }, (_, i) => ({
  at: T0 + i * 600, // 100 a minute
  method: 'GET',
  path: `/events/race-${i % REQUESTS}`,
  query: { enc: 'json' },
  status: 200,
  headers: { 'content-type': 'application/json; charset=utf-8' },
  body: body(i),
}));
const rawBytes = exchanges.reduce((n, e) => n + Buffer.byteLength(e.body), 0);

const dir = mkdtempSync(join(tmpdir(), 'racewire-bench-recording-'));
try {
  // Batches of 2 responses: a second's worth at 100 a minute, as the live writer flushes every second.
  const recorder = createRecorder({ dir, logger: pino({ level: 'silent' }), flushIntervalMs: 0 });
  const recordTimes: number[] = [];
  const flushStart = performance.now();
  for (let i = 0; i < exchanges.length; i++) {
    const t = performance.now();
    recorder.record(exchanges[i]!);
    recordTimes.push(performance.now() - t);
    if (i % 2 === 1) await recorder.flush();
  }
  await recorder.close();
  const writeMs = performance.now() - flushStart;
  const files = await recordingFiles([dir]);
  const diskBytes = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);

  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const store = createReplayStore(readRecording(files)[Symbol.asyncIterator]());
  const readStart = performance.now();
  const answer = await store.answer('GET', '/events/race-0', { enc: 'json' }, T0 + RESPONSES * 600);
  const readMs = performance.now() - readStart;
  global.gc?.();
  const kept = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heapBefore;
  if (!answer) throw new Error('the replay lost a request');

  recordTimes.sort((a, b) => a - b);
  const q = (p: number) => recordTimes[Math.floor(p * (recordTimes.length - 1))]!;
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  console.log(
    `${platform()} ${release()} ${arch()}, ${cpus().length} x ${cpus()[0]?.model}, Node ${process.version}`,
  );
  console.log(`${RESPONSES} responses of ${kb(rawBytes / RESPONSES)}, ${REQUESTS} distinct requests`);
  console.log(
    `record(): median ${(q(0.5) * 1000).toFixed(1)} µs, p99 ${(q(0.99) * 1000).toFixed(1)} µs on the caller's thread`,
  );
  console.log(
    `compress + write: ${(writeMs / RESPONSES).toFixed(2)} ms a response (off the caller's thread: zlib pool)`,
  );
  console.log(
    `on disk: ${kb(diskBytes / RESPONSES)} a response (ratio ${(rawBytes / diskBytes).toFixed(1)}), ${(((diskBytes / RESPONSES) * 144_000) / 1e9).toFixed(1)} GB a day at 100 a minute`,
  );
  console.log(
    `replay read: ${(readMs / RESPONSES).toFixed(2)} ms a record; kept ${kb(kept / REQUESTS)} a distinct request${global.gc ? '' : ' (run with --expose-gc for a steadier figure)'}`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
