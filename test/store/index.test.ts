import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createSqliteEventLog,
  databasePath,
  openDatabase,
  openSqliteEventLog,
} from '../../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-store-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = new Date('2026-11-22T10:00:00.000Z');
const tick = { kind: 'event', event: { type: 'tick', meetingId: 'm1', data: {} } } as const;

describe('openSqliteEventLog', () => {
  it('opens the log in DATA_DIR, owning its file; a log on a shared handle leaves it open', async () => {
    const dataDir = join(dir, 'data');
    const log = openSqliteEventLog(dataDir, 10);
    await log.append('r1', { entries: [tick], now });
    await log.close();
    const db = openDatabase(databasePath(dataDir));
    const again = createSqliteEventLog({ db, window: 10 });
    expect((await again.head('r1')).seq).toBe(1);
    await again.close();
    expect(db.open).toBe(true);
    db.close();
  });
});
