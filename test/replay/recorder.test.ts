import { mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { type RecordedExchange, toLine } from '../../src/replay/exchange.js';
import { createRecorder, type DropReason } from '../../src/replay/recorder.js';
import { readRecording } from '../../src/replay/recording-reader.js';
import { captureLogs } from '../support/log-capture.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-recorder-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const exchange = (at: string, n: number, body = `{"n":${n}}`): RecordedExchange => ({
  at: Date.parse(at),
  method: 'GET',
  path: `/events/race-${n}`,
  query: { enc: 'json' },
  status: 200,
  headers: { 'content-type': 'application/json' },
  body,
});

const read = async (files: string[], logger?: pino.Logger) => {
  const out: RecordedExchange[] = [];
  for await (const e of readRecording(files, logger)) out.push(e);
  return out;
};

describe('recorder', () => {
  it('writes gzip JSON lines, one file per UTC day, batch after batch, readable back in order', async () => {
    const dir = tempDir();
    const recorder = createRecorder({ dir, logger: pino({ level: 'silent' }), flushIntervalMs: 0 });
    const first = [exchange('2025-07-17T23:59:59.000Z', 1), exchange('2025-07-18T00:00:00.000Z', 2)];
    for (const e of first) recorder.record(e);
    await recorder.flush();
    const later = exchange('2025-07-18T00:00:01.500Z', 3);
    recorder.record(later);
    await recorder.close();
    expect(readdirSync(dir).sort()).toEqual(['upstream-2025-07-17.jsonl.gz', 'upstream-2025-07-18.jsonl.gz']);
    const day2 = join(dir, 'upstream-2025-07-18.jsonl.gz');
    // Two batches: two gzip members in one file, one gzip stream.
    expect(gunzipSync(readFileSync(day2)).toString().split('\n')).toHaveLength(3);
    expect(await read([join(dir, 'upstream-2025-07-17.jsonl.gz'), day2])).toEqual([...first, later]);
    expect(recorder.stats()).toEqual({ written: 3, dropped: 0, failedWrites: 0, bufferedBytes: 0 });
  });

  it('drops and counts what does not fit its buffer, warning once, and never throws', async () => {
    const dir = tempDir();
    const { logger, lines } = captureLogs();
    const drops: [DropReason, number][] = [];
    const big = JSON.stringify('x'.repeat(400));
    const lineBytes = Buffer.byteLength(`${toLine(exchange('2025-07-17T01:00:00.000Z', 0, big))}\n`);
    const recorder = createRecorder({
      dir,
      logger,
      flushIntervalMs: 0,
      maxBufferBytes: 2 * lineBytes + 10,
      onDrop: (reason, n) => drops.push([reason, n]),
    });
    for (let n = 0; n < 5; n++) recorder.record(exchange('2025-07-17T01:00:00.000Z', n, big));
    expect(recorder.stats()).toMatchObject({ dropped: 3 });
    expect(drops).toEqual([
      ['buffer_full', 1],
      ['buffer_full', 1],
      ['buffer_full', 1],
    ]);
    expect(lines.filter((l) => l.msg === 'recording buffer full; records dropped')).toHaveLength(1);
    await recorder.close();
    expect((await read([join(dir, 'upstream-2025-07-17.jsonl.gz')])).map((e) => e.path)).toEqual([
      '/events/race-0',
      '/events/race-1',
    ]);
  });

  it('logs and counts a failed write, drops that batch, and writes the next', async () => {
    const dir = tempDir();
    const { logger, lines } = captureLogs();
    const drops: [DropReason, number][] = [];
    let fail = true;
    const recorder = createRecorder({
      dir,
      logger,
      flushIntervalMs: 0,
      onDrop: (reason, n) => drops.push([reason, n]),
      append: async (file, data) => {
        if (fail) throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
        writeFileSync(file, data, { flag: 'a' });
      },
    });
    recorder.record(exchange('2025-07-17T01:00:00.000Z', 1));
    recorder.record(exchange('2025-07-17T01:00:01.000Z', 2));
    await recorder.flush();
    fail = false;
    recorder.record(exchange('2025-07-17T01:00:02.000Z', 3));
    await recorder.close();
    expect(drops).toEqual([['write_failed', 2]]);
    expect(recorder.stats()).toEqual({ written: 1, dropped: 2, failedWrites: 1, bufferedBytes: 0 });
    expect(lines.find((l) => l.level === 50)).toMatchObject({
      records: 2,
      msg: 'recording write failed; records dropped',
    });
    expect((await read([join(dir, 'upstream-2025-07-17.jsonl.gz')])).map((e) => e.path)).toEqual([
      '/events/race-3',
    ]);
  });

  it('reads a recording cut short by a crash up to the tear', async () => {
    const dir = tempDir();
    const recorder = createRecorder({ dir, logger: pino({ level: 'silent' }), flushIntervalMs: 0 });
    recorder.record(exchange('2025-07-17T01:00:00.000Z', 1));
    await recorder.flush();
    recorder.record(exchange('2025-07-17T01:00:01.000Z', 2, JSON.stringify('y'.repeat(5_000))));
    await recorder.close();
    const file = join(dir, 'upstream-2025-07-17.jsonl.gz');
    truncateSync(file, readFileSync(file).length - 30);
    const { logger, lines } = captureLogs();
    expect((await read([file], logger)).map((e) => e.path)).toEqual(['/events/race-1']);
    // The torn second line is never taken for an exchange, and the operator is told.
    expect(lines.map((l) => [l.level, l.msg])).toEqual([[40, 'recording lines skipped: not an exchange']]);
  });
});
