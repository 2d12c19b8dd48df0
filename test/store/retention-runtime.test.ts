/**
 * The runtime wires retention: a node that starts leading expires its event log at once, with cutoffs from the
 * race clock, and counts what it removed in /metrics.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { startRacewire } from '../../src/runtime.js';
import { createSqliteEventLog, databasePath, openDatabase } from '../../src/store/index.js';
import { event, snapshot } from './entry-builders.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-retention-runtime-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('retention in the runtime', () => {
  it('expires a DATA_DIR left from weeks ago when the node starts leading, and counts it', async () => {
    const db = openDatabase(databasePath(dir));
    const old = createSqliteEventLog({ db });
    const longAgo = new Date('2026-01-05T10:00:00Z');
    for (const stream of ['R-old-1', 'R-old-2'])
      await old.append(stream, {
        entries: [snapshot({ v: 1 }), event('a')],
        document: { v: 1 },
        now: longAgo,
      });
    await old.close();
    db.close();

    const config = loadConfig({ STORE: 'sqlite', DATA_DIR: dir, LOG_LEVEL: 'silent', PORT: '0' });
    const racewire = await startRacewire({
      config,
      listen: false,
      clockFrom: (origin) => createManualClock(origin),
      wallClock: createManualClock(Date.parse('2026-11-25T08:00:00Z')),
    });
    try {
      await vi.waitFor(
        async () => {
          const metrics = (await racewire.app.inject('/metrics')).body;
          expect(metrics).toContain('racewire_event_log_expired_streams_total{outcome="forgotten"} 2');
        },
        { timeout: 15_000 },
      );
      const head = await racewire.backend.log.head('R-old-1');
      expect([head.seq, head.documentSeq, head.document]).toEqual([2, 0, undefined]);
    } finally {
      await racewire.stop();
    }
  });
});
