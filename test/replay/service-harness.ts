/**
 * The whole service replaying a recording (REPLAY_FILE) on a manual clock, a second at a time to `until`;
 * then it stops and every stream of its log is read back.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LogEntry } from '../../src/events/envelope.js';
import { readLog, startOnManualClock } from '../support/manual-service.js';

export async function replayThroughService(opts: {
  recording: string;
  until: number;
  recordDir?: string;
  /** Sent as an API key header to the replay (a recording must never hold it). */
  apiKey?: string;
}): Promise<Map<string, LogEntry[]>> {
  const dataDir = mkdtempSync(join(tmpdir(), 'racewire-replay-'));
  try {
    const service = await startOnManualClock({
      STORE: 'sqlite',
      DATA_DIR: dataDir,
      REPLAY_FILE: opts.recording,
      // The recordings here were made without the market options: a request with them is not recorded.
      MARKET_DATA: 'off',
      ...(opts.recordDir ? { RECORD_DIR: opts.recordDir } : {}),
      ...(opts.apiKey ? { RACING_API_KEY_HEADER: 'x-api-key', RACING_API_KEY: opts.apiKey } : {}),
    });
    try {
      while (service.clock.now() < opts.until) await service.step(1000);
    } finally {
      await service.stop();
    }
    return await readLog(dataDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
