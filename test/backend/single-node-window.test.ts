/**
 * Which request window a single node gets (issue 28): against the racing API, which outlives the process, one
 * kept in DATA_DIR on the wall clock; beside the embedded simulator, which restarts with the process, one in
 * memory on race time.
 */
import { access, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { sqliteBackend } from '../../src/backend/single-node.js';
import { createManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { WINDOW_CHECKPOINT_FILE } from '../../src/upstream/window-checkpoint.js';

const T0 = Date.parse('2026-11-26T10:00:00Z');

async function node(dir: string, env: Record<string, string>) {
  const config = loadConfig({ STORE: 'sqlite', DATA_DIR: dir, RACING_API_MAX_RPM: '40', ...env });
  // The race clock runs ten times faster than the wall clock, as beside the simulator: which one the
  // window runs on shows in when its slot frees.
  const wallClock = createManualClock(T0);
  return sqliteBackend({
    config,
    clock: createManualClock(T0 + 3_600_000),
    wallClock,
    logger: pino({ level: 'silent' }),
  });
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('a single node request window', () => {
  it('is kept in DATA_DIR on the wall clock against the racing API, so the next process starts from it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'racewire-node-window-'));
    const env = { RACING_API_URL: 'http://127.0.0.1:9/affiliates/v1/racing' };
    const fresh = await node(dir, env);
    // A fresh DATA_DIR: as if the last window were full, the first slot 5 s (wall) on.
    expect(await fresh.requestWindow.tryAcquire()).toEqual({ admitted: false, retryInMs: 5_000 });
    await fresh.close();
    await writeFile(join(dir, WINDOW_CHECKPOINT_FILE), JSON.stringify({ starts: [] }));
    const first = await node(dir, env);
    expect(await first.requestWindow.tryAcquire()).toEqual({ admitted: true });
    const kept = JSON.parse(await readFile(join(dir, WINDOW_CHECKPOINT_FILE), 'utf8'));
    expect(kept).toEqual({ starts: [T0] }); // wall time, not the race clock's hour ahead
    const second = await node(dir, env); // the first one killed: never closed
    expect(await second.requestWindow.stats()).toEqual({ used: 1, limit: 40, nextFreeInMs: 0 });
    await second.close();
    await first.close();
  });

  it('stays in memory on race time beside the embedded simulator, and writes nothing to DATA_DIR', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'racewire-node-window-'));
    const backend = await node(dir, {});
    expect(await backend.requestWindow.tryAcquire()).toEqual({ admitted: true });
    expect(await backend.requestWindow.stats()).toEqual({ used: 1, limit: 40, nextFreeInMs: 0 });
    await backend.close();
    expect(await exists(join(dir, WINDOW_CHECKPOINT_FILE))).toBe(false);
  });
});
