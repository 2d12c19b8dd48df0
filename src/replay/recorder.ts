/**
 * Writes recorded exchanges to gzip-compressed JSON lines, one file per UTC day of their arrival time
 * (`upstream-YYYY-MM-DD.jsonl.gz` in the recording directory). It never blocks or fails the caller:
 * `record()` only appends to an in-memory buffer bounded in bytes (a record that does not fit is dropped and
 * counted), and a background flush compresses each batch off the main thread and appends it to its day's
 * file as one gzip member (a file of members is one valid gzip stream, so a crash loses at most the batch
 * being written, and a reader stops cleanly at a torn last member). A failed write is logged and counted,
 * and the batch is dropped: the poller goes on.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { Logger } from '../logger.js';
import { type RecordedExchange, toLine } from './exchange.js';

const gzip = promisify(gzipCallback);

export type DropReason = 'buffer_full' | 'write_failed';

export interface RecorderOptions {
  dir: string;
  logger: Logger;
  /** Most bytes held in memory, buffered or being written; a record beyond it is dropped. @default 64 MiB */
  maxBufferBytes?: number;
  /** Buffered bytes that start a write at once. @default 1 MiB */
  flushBytes?: number;
  /** Wall-clock interval between writes of whatever is buffered; 0: only on flushBytes and close. @default 1000 */
  flushIntervalMs?: number;
  /** Every record dropped, by reason (for metrics). */
  onDrop?: (reason: DropReason, records: number) => void;
  /** Replaces the file append (tests inject failures). */
  append?: (file: string, data: Uint8Array) => Promise<void>;
}

export interface RecorderStats {
  written: number;
  dropped: number;
  failedWrites: number;
  bufferedBytes: number;
}

export interface Recorder {
  record(exchange: RecordedExchange): void;
  /** Writes what is buffered; resolves when every write started so far is done. */
  flush(): Promise<void>;
  /** Stops the timer and writes what is left. */
  close(): Promise<void>;
  stats(): RecorderStats;
}

/** The file of a day's recording. */
export const recordingFile = (dir: string, at: number) =>
  join(dir, `upstream-${new Date(at).toISOString().slice(0, 10)}.jsonl.gz`);

const WARN_EVERY_MS = 60_000;

export function createRecorder(opts: RecorderOptions): Recorder {
  const maxBufferBytes = opts.maxBufferBytes ?? 64 * 1024 * 1024;
  const flushBytes = opts.flushBytes ?? 1024 * 1024;
  const append = opts.append ?? ((file, data) => appendFile(file, data));
  const { logger } = opts;
  let batch: { file: string; line: string }[] = [];
  let batchBytes = 0;
  let writingBytes = 0;
  let writes: Promise<void> = Promise.resolve();
  let madeDir = false;
  let lastWarnAt = Number.NEGATIVE_INFINITY;
  const stats = { written: 0, dropped: 0, failedWrites: 0 };

  const drop = (reason: DropReason, records: number) => {
    stats.dropped += records;
    opts.onDrop?.(reason, records);
  };

  async function write(lines: { file: string; line: string }[]): Promise<void> {
    const byFile = new Map<string, string[]>();
    for (const { file, line } of lines) {
      const list = byFile.get(file);
      if (list) list.push(line);
      else byFile.set(file, [line]);
    }
    for (const [file, fileLines] of byFile) {
      try {
        if (!madeDir) {
          await mkdir(opts.dir, { recursive: true });
          madeDir = true;
        }
        await append(file, await gzip(fileLines.join('')));
        stats.written += fileLines.length;
      } catch (err) {
        stats.failedWrites++;
        drop('write_failed', fileLines.length);
        logger.error({ err, file, records: fileLines.length }, 'recording write failed; records dropped');
      }
    }
  }

  function flush(): Promise<void> {
    if (batch.length > 0) {
      const lines = batch;
      const bytes = batchBytes;
      batch = [];
      batchBytes = 0;
      writingBytes += bytes;
      writes = writes
        .then(() => write(lines))
        .finally(() => {
          writingBytes -= bytes;
        });
    }
    return writes;
  }

  const timer =
    (opts.flushIntervalMs ?? 1000) > 0
      ? setInterval(() => void flush(), opts.flushIntervalMs ?? 1000)
      : undefined;
  timer?.unref();

  return {
    record(exchange) {
      const line = `${toLine(exchange)}\n`;
      const bytes = Buffer.byteLength(line);
      if (batchBytes + writingBytes + bytes > maxBufferBytes) {
        drop('buffer_full', 1);
        // Wall clock: this throttles what an operator reads, not race time.
        if (Date.now() - lastWarnAt >= WARN_EVERY_MS) {
          lastWarnAt = Date.now();
          logger.warn({ dropped: stats.dropped, maxBufferBytes }, 'recording buffer full; records dropped');
        }
        return;
      }
      batch.push({ file: recordingFile(opts.dir, exchange.at), line });
      batchBytes += bytes;
      if (batchBytes >= flushBytes) void flush();
    },
    flush,
    async close() {
      if (timer) clearInterval(timer);
      await flush();
    },
    stats: () => ({ ...stats, bufferedBytes: batchBytes + writingBytes }),
  };
}
