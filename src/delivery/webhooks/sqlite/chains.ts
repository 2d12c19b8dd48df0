/**
 * What the SQLite queue and endpoints share: the chains (the owed deliveries of one endpoint and stream, sent
 * in id order; `webhook_chains` keeps each head and when it is due, so finding due work reads an index, not
 * the backlog) and the `webhook_state` table (the feed cursor, the endpoints version, the claim counter).
 * Synchronous; callers run these inside their own transactions.
 */
import type { RaceEvent } from '../../../events/envelope.js';
import type { Database } from '../../../store/sqlite/database.js';
import { CHAIN_DUE_AT } from './rows.js';

export function createChains(db: Database) {
  const s = {
    insertDelivery:
      db.prepare(`INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, stream, seq,
      body, status, attempts, next_attempt_at, created_at, updated_at, replay_of)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`),
    addToChain: db.prepare(`INSERT INTO webhook_chains (endpoint_id, stream, head_id) VALUES (?, ?, ?)
      ON CONFLICT (endpoint_id, stream) DO NOTHING`),
    nextInChain: db
      .prepare(
        `SELECT MIN(id) FROM webhook_deliveries WHERE endpoint_id = ? AND stream = ? AND status = 'pending'`,
      )
      .pluck(),
    setHead: db.prepare('UPDATE webhook_chains SET head_id = ? WHERE endpoint_id = ? AND stream = ?'),
    dropChain: db.prepare('DELETE FROM webhook_chains WHERE endpoint_id = ? AND stream = ?'),
    refreshChain: db.prepare(`UPDATE webhook_chains SET due_at = (${CHAIN_DUE_AT})
      WHERE endpoint_id = ? AND stream = ?`),
    refreshEndpointChains: db.prepare(
      `UPDATE webhook_chains SET due_at = (${CHAIN_DUE_AT}) WHERE endpoint_id = ?`,
    ),
    refreshAllChains: db.prepare(`UPDATE webhook_chains SET due_at = (${CHAIN_DUE_AT})`),
    state: db.prepare('SELECT value FROM webhook_state WHERE key = ?').pluck(),
    setState: db.prepare(`INSERT INTO webhook_state (key, value) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
    bumpEndpoints: db.prepare(`INSERT INTO webhook_state (key, value) VALUES ('endpoints_version', '1')
      ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`),
  };

  return {
    state: (key: string, fallback: string) => (s.state.get(key) as string | undefined) ?? fallback,
    setState: (key: string, value: string) => void s.setState.run(key, value),
    /** Which endpoints want what changed: a feed batch planned before is refused. */
    endpointsChanged: () => void s.bumpEndpoints.run(),

    /** Inserts an owed delivery; it heads its (endpoint, stream) chain unless an earlier one is owed. */
    insert(
      endpointId: string,
      e: Pick<RaceEvent, 'id' | 'type' | 'stream' | 'seq'>,
      body: string,
      now: number,
      replayOf: number | null,
    ): number {
      const id = Number(
        s.insertDelivery.run(endpointId, e.id, e.type, e.stream, e.seq, body, now, now, now, replayOf)
          .lastInsertRowid,
      );
      if (s.addToChain.run(endpointId, e.stream, id).changes > 0) s.refreshChain.run(endpointId, e.stream);
      return id;
    },

    /** A finished head hands its chain to the next owed delivery, or the chain ends. */
    advance(endpointId: string, stream: string) {
      const next = s.nextInChain.get(endpointId, stream) as number | null;
      if (next === null) return void s.dropChain.run(endpointId, stream);
      s.setHead.run(next, endpointId, stream);
      s.refreshChain.run(endpointId, stream);
    },

    refresh: (endpointId: string, stream: string) => void s.refreshChain.run(endpointId, stream),
    refreshEndpoint: (endpointId: string) => void s.refreshEndpointChains.run(endpointId),
    refreshAll: () => void s.refreshAllChains.run(),
  };
}

export type Chains = ReturnType<typeof createChains>;

/** The synchronous shape of a port (better-sqlite3 is synchronous; outbox.ts makes it async). */
export type Sync<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => Promise<infer R> ? (...args: A) => R : never;
};
