/**
 * The outbox backends the contract suites run against: SQLite (in memory) and Redis (a fresh key prefix,
 * deleted after the run). Each can append entries as its event log would, without waking anyone.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Bus } from '../../../src/bus/bus.js';
import type { WebhookStore } from '../../../src/delivery/webhooks/index.js';
import { createSqliteOutbox, type WebhookService } from '../../../src/delivery/webhooks/index.js';
import type { LogEntry } from '../../../src/events/envelope.js';
import { openMemoryDb } from './helpers.js';

export interface BackendUnderTest {
  store: WebhookStore;
  /** Loops of a dispatching service that sleep on the clock when idle (dispatcher, Redis feed reader). */
  loops: number;
  /** What the event log's append does for the outbox, waking nobody (SQLite: onAppend by another writer;
   * Redis: the XADD to the feed). */
  append(entries: LogEntry[]): Promise<void>;
  /** An append through a service, waking it as in production (SQLite: onAppend; Redis: the bus). */
  enqueue(service: WebhookService, bus: Bus, entries: LogEntry[]): Promise<void>;
  close(): Promise<void>;
}

export type BackendFactory = () => Promise<BackendUnderTest>;

export const sqliteBackend: BackendFactory = async () => {
  const db = openMemoryDb();
  const writer = createSqliteOutbox(db);
  return {
    store: { kind: 'sqlite', db },
    loops: 1,
    append: async (entries) => void writer.enqueueForEntries(entries),
    enqueue: async (service, _bus, entries) => void service.enqueueForEntries(entries),
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
      for (const e of entries)
        if (e.kind === 'event') await redis.xadd(`${prefix}feed`, '*', 'e', JSON.stringify(e));
    };
    return {
      store: { kind: 'redis', redis, prefix },
      loops: 2,
      append,
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
