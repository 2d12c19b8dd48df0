import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEventLog, databasePath, openDatabase } from '../../src/store/index.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-store-index-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const now = new Date('2026-11-22T10:00:00.000Z');
const tick = { kind: 'event', event: { type: 'tick', meetingId: 'm1', data: {} } } as const;

describe('createEventLog', () => {
  it('makes a memory log that keeps the window', async () => {
    const log = createEventLog('memory', { window: 2, dataDir: dir });
    await log.append('r1', { entries: [tick, tick, tick], now });
    expect(await log.read('r1', 0)).toMatchObject({ ok: false, reason: 'too_old' });
  });

  it('makes a sqlite log in DATA_DIR that owns its file', async () => {
    const dataDir = join(dir, 'data');
    const log = createEventLog('sqlite', { window: 10, dataDir });
    await log.append('r1', { entries: [tick], now });
    await log.close();
    const db = openDatabase(databasePath(dataDir));
    const again = createEventLog('sqlite', { window: 10, dataDir, db });
    expect((await again.head('r1')).seq).toBe(1);
    await again.close();
    expect(db.open).toBe(true);
    db.close();
  });
});
