/**
 * The durable outbox, in the event log's SQLite database. The feed reader enqueues from the log's feed table
 * and moves the cursor in one transaction, so every appended event is owed exactly once; the dispatcher then
 * works only from these tables, which is what makes delivery survive a crash. The storage is synchronous
 * (better-sqlite3); the `Outbox` port is served by async wrappers around it.
 */
import type { RaceEvent } from '../../events/envelope.js';
import { FEED_START } from '../../store/ports.js';
import type { Database } from '../../store/sqlite/database.js';
import { migrate } from '../../store/sqlite/migrate.js';
import { createEndpointStore } from './endpoint-store.js';
import { formatBody } from './formatters/index.js';
import type {
  AttemptRecord,
  ClaimedDelivery,
  ClaimOptions,
  FeedStep,
  HeldClaim,
  NextState,
  Outbox,
} from './outbox-port.js';
import type { EndpointPatch, NewEndpoint } from './outbox-rows.js';
import {
  type Attempt,
  type BodyFormatter,
  CHAIN_DUE_AT,
  type Delivery,
  type DeliveryStatus,
  type EndpointWithSecrets,
  RESPONSE_BODY_LIMIT,
  type Row,
  toAttempt,
  toDelivery,
} from './outbox-rows.js';
import { OUTBOX_MIGRATIONS } from './outbox-schema.js';
import type { EndpointKind } from './retry-policy.js';
import { plainSecrets, type SecretCodec } from './secret-codec.js';

export type { Attempt, Delivery, DeliveryStatus, Endpoint, EndpointWithSecrets } from './outbox-rows.js';
export { newEndpointId, publicEndpoint, RESPONSE_BODY_LIMIT } from './outbox-rows.js';

export interface OutboxOptions {
  /** @default formatBody */
  format?: BodyFormatter;
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

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: an adapter of the outbox port: its methods share the prepared statements and each is short
export function createSqliteOutbox(db: Database, options: OutboxOptions = {}): Outbox {
  const opts = { format: options.format ?? formatBody, now: options.now ?? Date.now };
  migrate(db, 'webhooks', OUTBOX_MIGRATIONS);
  const endpoints = createEndpointStore(db, opts.now, options.secrets ?? plainSecrets);
  const { endpoint } = endpoints;
  const s = {
    insertDelivery:
      db.prepare(`INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, stream, seq,
      body, status, attempts, next_attempt_at, created_at, updated_at, replay_of)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, ?, ?, ?)`),
    delivery: db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?'),
    body: db.prepare('SELECT body FROM webhook_deliveries WHERE id = ?'),
    // Only the head of each (endpoint, stream) chain can be due: per-endpoint, per-race order. Reading the
    // heads through webhook_chains keeps this proportional to the active chains, not to the backlog.
    due: db.prepare(`SELECT d.* FROM webhook_chains c JOIN webhook_deliveries d ON d.id = c.head_id
      WHERE c.due_at <= @now ORDER BY c.due_at, c.head_id LIMIT @limit`),
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
    markInFlight: db.prepare(
      `UPDATE webhook_deliveries SET status = 'in_flight', updated_at = ?, claim = ?, claim_fence = ? WHERE id = ?`,
    ),
    nextClaim: db
      .prepare(`INSERT INTO webhook_state (key, value) VALUES ('claims', '1')
        ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1 RETURNING CAST(value AS INTEGER)`)
      .pluck(),
    inFlightByEndpoint: db.prepare(
      `SELECT endpoint_id, COUNT(*) AS n FROM webhook_deliveries WHERE status = 'in_flight' GROUP BY endpoint_id`,
    ),
    recoverExpired: db.prepare(
      `UPDATE webhook_deliveries SET status = 'pending', claim = NULL WHERE status = 'in_flight' AND updated_at <= ?`,
    ),
    oldestClaim: db
      .prepare(`SELECT MIN(updated_at) FROM webhook_deliveries WHERE status = 'in_flight'`)
      .pluck(),
    recoverOne: db.prepare(`UPDATE webhook_deliveries SET status = 'pending', claim = NULL
      WHERE status = 'in_flight' AND id = ? AND claim = ?`),
    // Only while it is still the caller's claim (see the port's contract).
    finish: db.prepare(`UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1,
      next_attempt_at = @next, updated_at = @now, last_status_code = @code, last_error = @error, claim = NULL
      WHERE id = @id AND status = 'in_flight' AND claim = @claim`),
    insertAttempt:
      db.prepare(`INSERT INTO webhook_attempts (delivery_id, attempt_no, at, status_code, latency_ms,
      error, response_body, outcome, claim, fence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    counts: db.prepare('SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status'),
    attempts: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt_no'),
    // When the next claim can happen: the earliest head of a chain, once its endpoint's pause is over.
    nextDue: db.prepare('SELECT MIN(due_at) AS at FROM webhook_chains'),
    resume: db.prepare(`UPDATE webhook_deliveries SET next_attempt_at = MIN(next_attempt_at, ?)
      WHERE endpoint_id = ? AND status = 'pending'`),
    deleteAttempts: db.prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN
      (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)`),
    deleteDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE endpoint_id = ?'),
    deleteChains: db.prepare('DELETE FROM webhook_chains WHERE endpoint_id = ?'),
    pruneAttempts:
      db.prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries
      WHERE status IN ('delivered', 'failed') AND updated_at < ?)`),
    pruneDeliveries: db.prepare(
      `DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < ?`,
    ),
    state: db.prepare('SELECT value FROM webhook_state WHERE key = ?').pluck(),
    setState: db.prepare(`INSERT INTO webhook_state (key, value) VALUES (?, ?)
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
    bumpEndpoints: db.prepare(`INSERT INTO webhook_state (key, value) VALUES ('endpoints_version', '1')
      ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`),
    fedAlready: db
      .prepare(
        'SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ? AND replay_of IS NULL',
      )
      .pluck(),
  };
  const state = (key: string, fallback: string) => (s.state.get(key) as string | undefined) ?? fallback;
  /** Which endpoints want what changed: a batch planned before is refused. */
  const endpointsChanged = () => void s.bumpEndpoints.run();

  /** Inserts an owed delivery; it heads its (endpoint, stream) chain unless an earlier one is owed. */
  const insertRow = (
    r: { endpointId: string; eventId: string; eventType: string; stream: string; seq: number; body: string },
    now: number,
    replayOf: number | null,
  ): number => {
    const id = Number(
      s.insertDelivery.run(
        r.endpointId,
        r.eventId,
        r.eventType,
        r.stream,
        r.seq,
        r.body,
        now,
        now,
        now,
        replayOf,
      ).lastInsertRowid,
    );
    if (s.addToChain.run(r.endpointId, r.stream, id).changes > 0) s.refreshChain.run(r.endpointId, r.stream);
    return id;
  };
  const insertDelivery = (
    endpointId: string,
    event: RaceEvent,
    body: string,
    now: number,
    replayOf: number | null,
  ) =>
    insertRow(
      { endpointId, eventId: event.id, eventType: event.type, stream: event.stream, seq: event.seq, body },
      now,
      replayOf,
    );

  /** A finished head hands its chain to the next owed delivery, or the chain ends. */
  const advanceChain = (endpointId: string, stream: string) => {
    const next = s.nextInChain.get(endpointId, stream) as number | null;
    if (next === null) s.dropChain.run(endpointId, stream);
    else s.setHead.run(next, endpointId, stream);
    if (next !== null) s.refreshChain.run(endpointId, stream);
  };

  /** A rate limit or the chat pacing: nothing is sent to the endpoint before `until`. */
  const pauseEndpoint = (id: string, until: number) => {
    endpoints.pauseRow(id, until);
    s.refreshEndpointChains.run(id);
  };

  const delivery = (id: number): Delivery | undefined => {
    const r = s.delivery.get(id) as Row | undefined;
    return r && toDelivery(r);
  };

  /** A replay is a new delivery with the same webhook-id and the same bytes; the original keeps its history. */
  const replay = (deliveryId: number): Delivery | undefined => {
    const r = s.delivery.get(deliveryId) as Row | undefined;
    if (!r) return undefined;
    const original = toDelivery(r);
    const id = insertRow({ ...original, body: r.body as string }, opts.now(), original.id);
    return delivery(id);
  };

  const sync = {
    /** Enqueues one event for one endpoint regardless of its filters (test events). */
    enqueueOne(endpointId: string, event: RaceEvent): Delivery | undefined {
      const ep = endpoint(endpointId);
      const body = ep && opts.format(ep.kind, event);
      if (!ep || body === undefined) return undefined;
      return delivery(insertDelivery(ep.id, event, body, opts.now(), null));
    },

    endpoint,
    listEndpoints: endpoints.listEndpoints,
    createEndpoint: (e: NewEndpoint): EndpointWithSecrets =>
      db.transaction(() => {
        endpointsChanged();
        return endpoints.createEndpoint(e);
      })(),
    rotateSecret: endpoints.rotateSecret,
    markEndpointHealth: endpoints.markEndpointHealth,
    endpointHealth: endpoints.endpointHealth,

    enabledEndpoints: () =>
      db.transaction(() => ({
        version: state('endpoints_version', '0'),
        endpoints: endpoints.enabledEndpoints(),
      }))(),

    feedCursor: (): string => state('feed_cursor', FEED_START),

    enqueueFromFeed: (step: FeedStep): 'stale' | { enqueued: number } =>
      db
        .transaction(() => {
          if (state('feed_cursor', FEED_START) !== step.from) return 'stale' as const;
          if (state('endpoints_version', '0') !== step.endpointsVersion) return 'stale' as const;
          const now = opts.now();
          let enqueued = 0;
          for (const p of step.deliveries) {
            if (s.fedAlready.get(p.endpointId, p.event.id) !== undefined) continue;
            insertDelivery(p.endpointId, p.event, p.body, now, null);
            enqueued++;
          }
          s.setState.run('feed_cursor', step.to);
          return { enqueued };
        })
        .immediate(),

    /** Updates an endpoint; re-enabling makes its held deliveries due now. */
    updateEndpoint: (id: string, patch: EndpointPatch): EndpointWithSecrets | undefined =>
      db.transaction(() => {
        if (!endpoints.updateRow(id, patch)) return undefined;
        endpointsChanged();
        if (patch.enabled) s.resume.run(opts.now(), id);
        if (patch.enabled !== undefined) s.refreshEndpointChains.run(id);
        return endpoint(id);
      })(),

    deleteEndpoint: (id: string): boolean =>
      db.transaction(() => {
        s.deleteAttempts.run(id);
        s.deleteDeliveries.run(id);
        s.deleteChains.run(id);
        endpointsChanged();
        return endpoints.removeRow(id);
      })(),

    /** Disables an endpoint; what it is owed stays pending for when it is re-enabled. */
    disableEndpoint: (id: string, reason: string) =>
      db.transaction(() => {
        endpoints.disableRow(id, reason);
        endpointsChanged();
        s.refreshEndpointChains.run(id);
      })(),

    pauseEndpoint,

    /**
     * Claims due deliveries and marks them in flight: at most `limit`, at most `perEndpoint` in flight per
     * endpoint (so one slow or dead endpoint cannot take every slot), one at a time per chat endpoint.
     */
    claimDue(now: number, limit: number, o: ClaimOptions): ClaimedDelivery[] {
      return db.transaction(() => {
        const busy = new Map<string, number>();
        for (const r of s.inFlightByEndpoint.all() as { endpoint_id: string; n: number }[])
          busy.set(r.endpoint_id, r.n);
        const rows = (s.due.all({ now, limit: limit * 4 + 32 }) as Row[]).map(toDelivery);
        const claimed: ClaimedDelivery[] = [];
        const kinds = new Map<string, EndpointKind | undefined>();
        for (const d of rows) {
          if (claimed.length >= limit) break;
          if (!kinds.has(d.endpointId)) kinds.set(d.endpointId, endpoint(d.endpointId)?.kind);
          const kind = kinds.get(d.endpointId);
          const n = busy.get(d.endpointId) ?? 0;
          if (!kind || n >= (kind === 'standard' ? o.perEndpoint : 1)) continue;
          busy.set(d.endpointId, n + 1);
          const claim = s.nextClaim.get() as number;
          s.markInFlight.run(now, claim, o.fence ?? null, d.id);
          s.refreshChain.run(d.endpointId, d.stream);
          if (kind !== 'standard') pauseEndpoint(d.endpointId, now + o.chatMinIntervalMs);
          claimed.push({ ...d, status: 'in_flight', claim, fence: o.fence ?? null });
        }
        return claimed;
      })();
    },

    body: (id: number): string | undefined => (s.body.get(id) as { body: string } | undefined)?.body,

    /** Records an attempt and, while the claim holds, the delivery's new state, in one transaction. */
    recordAttempt(d: ClaimedDelivery, a: AttemptRecord, next: NextState): boolean {
      return db.transaction(() => {
        s.insertAttempt.run(
          d.id,
          d.attempts + 1,
          a.at,
          a.statusCode ?? null,
          Math.round(a.latencyMs),
          a.error ?? null,
          a.responseBody.slice(0, RESPONSE_BODY_LIMIT),
          a.outcome,
          d.claim,
          d.fence,
        );
        const changed = s.finish.run({
          id: d.id,
          claim: d.claim,
          status: next.status,
          next: next.nextAttemptAt,
          now: a.at,
          code: a.statusCode ?? null,
          error: a.error ?? null,
        }).changes;
        if (changed === 0) return false;
        if (next.status === 'delivered' || next.status === 'failed') advanceChain(d.endpointId, d.stream);
        else s.refreshChain.run(d.endpointId, d.stream);
        return true;
      })();
    },

    /** Claims released (at stop) or expired (after a crash or a takeover) are owed again (at least once);
     * a claim is made at its delivery's `updated_at`. */
    recoverInFlight(which: readonly HeldClaim[] | { claimedBefore: number }): number {
      return db.transaction(() => {
        const n =
          'claimedBefore' in which
            ? s.recoverExpired.run(which.claimedBefore).changes
            : which.reduce((sum, c) => sum + s.recoverOne.run(c.id, c.claim).changes, 0);
        // Runs every dispatcher turn: the chains change only when a claim was released.
        if (n > 0) s.refreshAllChains.run();
        return n;
      })();
    },

    delivery,

    listDeliveries(
      endpointId: string,
      q: { status?: DeliveryStatus; limit: number; beforeId?: number },
    ): Delivery[] {
      const rows = db
        .prepare(`SELECT * FROM webhook_deliveries WHERE endpoint_id = ? AND (? IS NULL OR status = ?)
          AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?`)
        .all(
          endpointId,
          q.status ?? null,
          q.status ?? null,
          q.beforeId ?? null,
          q.beforeId ?? null,
          q.limit,
        ) as Row[];
      return rows.map(toDelivery);
    },

    attempts: (deliveryId: number): Attempt[] => (s.attempts.all(deliveryId) as Row[]).map(toAttempt),

    replay,

    /** Replays every event delivered (or owed) to the endpoint whose first delivery was created in [from, to]. */
    replayRange(endpointId: string, from: number, to: number): number {
      return db.transaction(() => {
        const originals = db
          .prepare(`SELECT id FROM webhook_deliveries WHERE endpoint_id = ? AND replay_of IS NULL
            AND created_at >= ? AND created_at <= ? ORDER BY id`)
          .all(endpointId, from, to) as { id: number }[];
        for (const o of originals) replay(o.id);
        return originals.length;
      })();
    },

    /** Forgets finished deliveries (and their attempts) last updated before `before`; owed ones are kept. */
    prune: (before: number): number =>
      db.transaction(() => {
        s.pruneAttempts.run(before);
        return s.pruneDeliveries.run(before).changes;
      })(),

    counts(): Record<DeliveryStatus, number> {
      const out: Record<DeliveryStatus, number> = { pending: 0, in_flight: 0, delivered: 0, failed: 0 };
      for (const r of s.counts.all() as { status: DeliveryStatus; n: number }[]) out[r.status] = r.n;
      return out;
    },

    nextDueAt: (): number | null => (s.nextDue.get() as { at: number | null }).at,
    oldestClaimAt: (): number | null => s.oldestClaim.get() as number | null,
  };
  return asyncFacade(sync);
}
