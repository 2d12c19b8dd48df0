/**
 * Per-component schema migrations. One SQLite file holds the tables of several modules (event log, webhook
 * outbox, ...), and `PRAGMA user_version` is a single number, so each component records its own version
 * in `schema_versions` (created by openDatabase) and migrates only its own tables.
 */
import { EventLogError } from '../errors.js';
import type { Database } from './database.js';

/** Step i (0-based) takes the component's schema from version i to version i + 1. Never edit a shipped step. */
export type Migration = string | ((db: Database) => void);

/** Brings `component`'s tables up to `migrations.length`, all in one write transaction. */
export function migrate(db: Database, component: string, migrations: readonly Migration[]): void {
  db.transaction(() => {
    const row = db.prepare('SELECT version FROM schema_versions WHERE component = ?').get(component) as
      | { version: number }
      | undefined;
    const current = row?.version ?? 0;
    if (current > migrations.length) {
      throw new EventLogError(
        'schema_too_new',
        `${component} tables are at version ${current}; this racewire knows up to ${migrations.length}`,
      );
    }
    for (const step of migrations.slice(current)) {
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    if (current < migrations.length) {
      db.prepare(
        'INSERT INTO schema_versions (component, version) VALUES (?, ?) ON CONFLICT (component) DO UPDATE SET version = excluded.version',
      ).run(component, migrations.length);
    }
  }).immediate();
}
