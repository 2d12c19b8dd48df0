/**
 * Child process of the kill -9 test: racewire's event log and webhook service on a database file.
 * argv: <db path> <receiver url> <events to append (0 to only resume)>. Prints one JSON line per milestone.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { systemClock } from '../../../src/clock.js';
import { createSqliteOutbox, registerWebhooks } from '../../../src/delivery/webhooks/index.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../../../src/store/sqlite/sqlite-event-log.js';

const [path, receiverUrl, countArg] = process.argv.slice(2) as [string, string, string];
const count = Number(countArg);
const logger = pino({ level: 'silent' });
const db = openDatabase(path);
const app = Fastify({ loggerInstance: logger }) as unknown as FastifyInstance;
const log = createSqliteEventLog({ db });
await registerWebhooks(app, {
  store: { outbox: createSqliteOutbox(db), feed: log.feed },
  clock: systemClock,
  logger,
  config: { allowedHosts: ['127.0.0.1'], concurrency: 4, timeoutMs: 2000 },
});
await app.ready();

if (count > 0) {
  const res = await app.inject({
    method: 'POST',
    url: '/v1/webhooks/endpoints',
    payload: { url: `${receiverUrl}/hook` },
  });
  process.stdout.write(`${JSON.stringify({ secret: res.json().secret })}\n`);
  for (let i = 0; i < count; i++) {
    const raceId = `race-${i % 5}`;
    await log.append(raceId, {
      entries: [{ kind: 'event', event: { type: 'runner.scratched', meetingId: 'm1', raceId, data: { i } } }],
      now: new Date(),
    });
  }
  process.stdout.write(`${JSON.stringify({ appended: count })}\n`);
} else {
  process.stdout.write(`${JSON.stringify({ resumed: true })}\n`);
}
