/**
 * The request window kept in DATA_DIR (issue 28): what one process writes the next one reads, and a file that
 * is missing, torn or not what was written is never trusted: the node then ramps up as if the last window
 * were full, and says so when the file was there but unreadable.
 */
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createDurableRateWindow } from '../../src/upstream/durable-rate-window.js';
import { fileWindowCheckpoint, WINDOW_CHECKPOINT_FILE } from '../../src/upstream/window-checkpoint.js';
import { captureLogs } from '../support/log-capture.js';

const T0 = Date.parse('2026-11-26T10:00:00Z');
const dataDir = () => mkdtemp(join(tmpdir(), 'racewire-window-'));

describe('the request window kept in DATA_DIR', () => {
  it('gives the next process the starts the last one was admitted, written before each admission was answered', async () => {
    const dir = await dataDir();
    const { logger } = captureLogs();
    await fileWindowCheckpoint(dir, logger).write([]); // a DATA_DIR whose last window is long past
    const clock = createManualClock(T0);
    const first = await createDurableRateWindow({
      maxPerMinute: 3,
      clock,
      checkpoint: fileWindowCheckpoint(dir, logger),
      logger,
    });
    expect(await first.tryAcquire()).toEqual({ admitted: true });
    await clock.advance(10_000);
    expect(await first.tryAcquire()).toEqual({ admitted: true });
    // Killed here: no stop, no flush. The file already holds both starts.
    expect(JSON.parse(await readFile(join(dir, WINDOW_CHECKPOINT_FILE), 'utf8'))).toEqual({
      starts: [T0, T0 + 10_000],
    });
    await clock.advance(5_000);
    const second = await createDurableRateWindow({
      maxPerMinute: 3,
      clock,
      checkpoint: fileWindowCheckpoint(dir, logger),
      logger,
    });
    expect(await second.stats()).toEqual({ used: 2, limit: 3, nextFreeInMs: 0 });
    expect(await second.tryAcquire()).toEqual({ admitted: true });
    // Full until the first start is 62 s old (the 2 s margin of the shared window).
    expect(await second.tryAcquire()).toEqual({ admitted: false, retryInMs: 47_000 });
  });

  it('reads nothing, and logs nothing, from a DATA_DIR that never kept a window', async () => {
    const { logger, lines } = captureLogs('debug');
    expect(await fileWindowCheckpoint(await dataDir(), logger).read()).toBeUndefined();
    expect(lines).toEqual([]);
  });

  it('ignores a temporary file a crash left beside the checkpoint', async () => {
    const dir = await dataDir();
    const { logger } = captureLogs();
    await fileWindowCheckpoint(dir, logger).write([T0]);
    await writeFile(join(dir, `${WINDOW_CHECKPOINT_FILE}.tmp`), '{"starts":[1,');
    expect(await fileWindowCheckpoint(dir, logger).read()).toEqual([T0]);
  });

  it.each([
    [
      'not JSON',
      '{"starts":[17956872',
      'request window checkpoint is not JSON; treating the last window as full',
    ],
    [
      'malformed',
      '{"starts":["soon"]}',
      'request window checkpoint is malformed; treating the last window as full',
    ],
  ])(
    'treats a checkpoint that is %s as a full window, logs why, and ramps up: the first request 5 s on at 40 per minute',
    async (_, content, message) => {
      const dir = await dataDir();
      await writeFile(join(dir, WINDOW_CHECKPOINT_FILE), content);
      const { logger, lines } = captureLogs();
      const clock = createManualClock(T0);
      const window = await createDurableRateWindow({
        maxPerMinute: 40,
        clock,
        checkpoint: fileWindowCheckpoint(dir, logger),
        logger,
      });
      expect(lines.filter((l) => l.level === 40).map((l) => l.msg)).toEqual([message]);
      expect(await window.stats()).toEqual({ used: 40, limit: 40, nextFreeInMs: 5_000 });
      expect(await window.tryAcquire()).toEqual({ admitted: false, retryInMs: 5_000 });
      await clock.advance(5_000);
      expect(await window.tryAcquire()).toEqual({ admitted: true });
      expect(await window.tryAcquire()).toEqual({ admitted: false, retryInMs: 1_500 });
      // The next write replaces the corrupt file with a readable one.
      const kept = JSON.parse(await readFile(join(dir, WINDOW_CHECKPOINT_FILE), 'utf8')) as {
        starts: number[];
      };
      expect(kept.starts).toHaveLength(40);
      expect(kept.starts.at(-1)).toBe(T0 + 5_000);
    },
  );
});
