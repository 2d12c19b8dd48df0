/**
 * The SQLite adapter's factory: the queue, endpoints and history on the `webhook_*` tables of the event log's
 * database (one node). The storage is synchronous (better-sqlite3); the ports are served by async wrappers.
 */
import type { Database } from '../../../store/sqlite/database.js';
import { migrate } from '../../../store/sqlite/migrate.js';
import type { Outbox } from '../ports.js';
import { plainSecrets, type SecretCodec } from '../secret-codec.js';
import { createChains } from './chains.js';
import { createSqliteEndpoints } from './endpoints.js';
import { createSqliteHistory } from './history.js';
import { createSqliteQueue } from './queue.js';
import { OUTBOX_MIGRATIONS } from './schema.js';

export interface OutboxOptions {
  /** Time of created/updated stamps. @default Date.now */
  now?: () => number;
  /** How endpoint secrets are stored (SECRETS_KEY). @default plainSecrets */
  secrets?: SecretCodec;
}

type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : never;
};

/** The same methods, answering promises (a throw becomes a rejection). */
function asyncFacade<T extends Record<string, (...args: never[]) => unknown>>(sync: T): Async<T> {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(sync)) out[name] = async (...args: never[]) => fn(...args);
  return out as Async<T>;
}

export function createSqliteOutbox(db: Database, options: OutboxOptions = {}): Outbox {
  const now = options.now ?? Date.now;
  migrate(db, 'webhooks', OUTBOX_MIGRATIONS);
  const chains = createChains(db);
  return {
    queue: asyncFacade(createSqliteQueue(db, chains, now)),
    endpoints: asyncFacade(createSqliteEndpoints(db, chains, now, options.secrets ?? plainSecrets)),
    history: asyncFacade(createSqliteHistory(db)),
  };
}
