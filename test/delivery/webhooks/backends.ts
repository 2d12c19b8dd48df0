/**
 * The outbox backends the contract suites run against: SQLite (in memory) and Redis (a fresh key prefix,
 * deleted after the run), each with its event log's feed. Each can put entries in the feed as its event log's
 * append would, without waking anyone.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Bus } from '../../../src/bus/bus.js';
import type { WebhookStore } from '../../../src/delivery/webhooks/index.js';
import {
  createRedisOutbox,
  createSqliteOutbox,
  type WebhookService,
} from '../../../src/delivery/webhooks/index.js';
import type { LogEntry } from '../../../src/events/envelope.js';
import { createRedisEventLog } from '../../../src/store/redis/redis-event-log.js';
import { createSqliteEventLog } from '../../../src/store/sqlite/sqlite-event-log.js';
import { openMemoryDb } from './helpers.js';

export interface BackendUnderTest {
  /** The outbox (stamping times with `now`) and feed of one node on this storage. */
  store(now: () => number): WebhookStore;
  /** Loops of a dispatching service that sleep on the clock when idle (dispatcher, feed reader). */
  loops: number;
  /** What the event log's append does for the outbox, waking nobody: its events into the feed (SQLite: the
   * feed table; Redis: the XADD to the feed stream). */
  append(entries: LogEntry[]): Promise<string[]>;
  /** Forgets the outbox's feed cursor, as a store that lost it would. */
  loseCursor(): Promise<void>;
  /** An append as in production: into the feed, then published on the bus (which wakes the service). */
  enqueue(service: WebhookService, bus: Bus, entries: LogEntry[]): Promise<void>;
  close(): Promise<void>;
}

export type BackendFactory = () => Promise<BackendUnderTest>;

export const sqliteBackend: BackendFactory = async () => {
  const db = openMemoryDb();
  const log = createSqliteEventLog({ db });
  const insert = db.prepare('INSERT INTO log_feed (entry) VALUES (?)');
  const append = async (entries: LogEntry[]) =>
    entries.flatMap((e) =>
      e.kind === 'event' ? [String(insert.run(JSON.stringify(e)).lastInsertRowid)] : [],
    );
  return {
    store: (now) => ({ outbox: createSqliteOutbox(db, { now }), feed: log.feed }),
    loops: 2,
    append,
    loseCursor: async () => void db.prepare("DELETE FROM webhook_state WHERE key = 'feed_cursor'").run(),
    async enqueue(_service, bus, entries) {
      await append(entries);
      bus.publish(entries);
    },
    close: async () => void db.close(),
  };
};

/** A Redis backend factory on one client per test file; `cleanup` deletes every key the run made. */
export function redisBackends(url: string) {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const runPrefix = `racewire-test:${randomUUID()}:`;
  let n = 0;
  const factory: BackendFactory = async () => {
    const prefix = `${runPrefix}${++n}:`;
    const append = async (entries: LogEntry[]) => {
      const positions: string[] = [];
      for (const e of entries)
        if (e.kind === 'event')
          positions.push((await redis.xadd(`${prefix}feed`, '*', 'e', JSON.stringify(e)))!);
      return positions;
    };
    return {
      store: (now) => ({
        outbox: createRedisOutbox({ redis, prefix, now }),
        feed: createRedisEventLog({ redis, prefix }).feed,
      }),
      loops: 2,
      append,
      loseCursor: async () => void (await redis.del(`${prefix}webhooks:{shared}:feed-cursor`)),
      async enqueue(_service, bus, entries) {
        await append(entries);
        bus.publish(entries);
      },
      close: async () => {},
    };
  };
  return {
    redis,
    factory,
    nextPrefix: () => `${runPrefix}${++n}:`,
    async cleanup() {
      const stale = await redis.keys(`${runPrefix}*`);
      if (stale.length > 0) await redis.del(...stale);
      await redis.quit();
    },
  };
}
