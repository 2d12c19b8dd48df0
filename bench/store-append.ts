/**
 * Measures SQLite append cost for a typical change: one patch of 10 ops and 2 events, with the new document
 * handed over as the head (checkpointed every 32 patches). Prints the mean and the spread per append: a
 * checkpoint append compresses the whole document. Not a test: run `npx tsx bench/store-append.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NewEntry } from '../src/events/envelope.js';
import { openDatabase } from '../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../src/store/sqlite/sqlite-event-log.js';
import { largeDocument } from '../test/store/large-document.js';

async function measure(label: string, document: Record<string, unknown>, appends: number, streams: number) {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-measure-'));
  const db = openDatabase(join(dir, 'racewire.db'));
  const log = createSqliteEventLog({ db, window: 5000 });
  for (let s = 0; s < streams; s++) {
    await log.append(`r${s}`, { entries: [{ kind: 'snapshot', document }], document, now: new Date() });
  }
  const change = (i: number): NewEntry[] => [
    {
      kind: 'patch',
      ops: Array.from({ length: 10 }, (_, k) => ({
        op: 'replace' as const,
        path: `/runners/${k}/odds/fixed_win`,
        value: i + k,
      })),
    },
    {
      kind: 'event',
      event: {
        type: 'runner.odds_changed',
        meetingId: 'm1',
        raceId: 'r1',
        data: { runner: 1, from: 2.5, to: 2.6 },
      },
    },
    {
      kind: 'event',
      event: {
        type: 'runner.odds_changed',
        meetingId: 'm1',
        raceId: 'r1',
        data: { runner: 2, from: 3.5, to: 3.2 },
      },
    },
  ];
  const times: number[] = [];
  const start = performance.now();
  for (let i = 0; i < appends; i++) {
    const t0 = performance.now();
    await log.append(`r${i % streams}`, { entries: change(i), document, now: new Date() });
    times.push(performance.now() - t0);
  }
  const ms = performance.now() - start;
  const size = JSON.stringify(document).length;
  const sorted = times.sort((a, b) => a - b);
  const q = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!.toFixed(3);
  console.log(
    `${label}: ${appends} appends (document ${(size / 1024).toFixed(0)} KB) in ${ms.toFixed(0)} ms = ${((appends / ms) * 1000).toFixed(0)} appends/s, mean ${((ms / appends) * 1000).toFixed(0)} µs; median ${q(0.5)} ms, p95 ${q(0.95)} ms, p99 ${q(0.99)} ms`,
  );
  await log.close();
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

const small = {
  race: { id: 'r1', status: 'Open' },
  runners: Array.from({ length: 12 }, (_, k) => ({ k, odds: { fixed_win: 2 + k }, name: `Runner ${k}` })),
};
await measure('small document', small, 20_000, 50);
await measure('race-sized document', largeDocument(), 2_000, 50);
