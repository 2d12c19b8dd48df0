/**
 * Child process for the kill -9 test: appends to one stream in a loop and prints each seq once its append
 * has resolved (is acknowledged). Run with `node --import tsx test/store/append-child.ts <db path>`.
 */
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../../src/store/sqlite/sqlite-event-log.js';

const path = process.argv[2];
if (!path) throw new Error('usage: append-child.ts <db path>');
const log = createSqliteEventLog({ db: openDatabase(path) });

for (let i = 0; ; i++) {
  // A change like the pipeline's: a patch with a new document and an event, every few a snapshot.
  const document = { i, payload: 'x'.repeat(2000) };
  const stored = await log.append('r1', {
    entries: [
      i % 10 === 0
        ? { kind: 'snapshot', document }
        : { kind: 'patch', ops: [{ op: 'replace', path: '/i', value: i }] },
      { kind: 'event', event: { type: 'tick', meetingId: 'm1', raceId: 'r1', data: { i } } },
    ],
    document,
    now: new Date(),
  });
  process.stdout.write(`${stored.at(-1)!.seq}\n`);
}
