/**
 * The SQLite queue: deliveries owed and in flight, each state change one transaction. The feed reader
 * enqueues a batch and moves the cursor in one transaction, so every appended event is owed exactly once;
 * the dispatcher then works only from these tables, which is what makes delivery survive a crash.
 */

import { FEED_START } from '../../../store/ports.js';
import type { Database } from '../../../store/sqlite/database.js';
import type { PlannedDelivery } from '../dispatch/enqueue-plan.js';
import { type Delivery, type EndpointKind, RESPONSE_BODY_LIMIT } from '../model.js';
import type {
  AttemptRecord,
  ClaimedDelivery,
  ClaimOptions,
  FeedStep,
  HeldClaim,
  NextState,
  WebhookQueue,
} from '../ports.js';
import type { Chains, Sync } from './chains.js';
import { type Row, toDelivery } from './rows.js';

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the queue port over SQLite: its methods share the prepared statements and the chains, and each is short
export function createSqliteQueue(db: Database, chains: Chains, now: () => number) {
  const s = {
    delivery: db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?'),
    kind: db.prepare('SELECT kind FROM webhook_endpoints WHERE id = ?').pluck(),
    // Only the head of each (endpoint, stream) chain can be due: per-endpoint, per-race order. Reading the
    // heads through webhook_chains keeps this proportional to the active chains, not to the backlog.
    due: db.prepare(`SELECT d.* FROM webhook_chains c JOIN webhook_deliveries d ON d.id = c.head_id
      WHERE c.due_at <= @now ORDER BY c.due_at, c.head_id LIMIT @limit`),
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
    recoverOne: db.prepare(`UPDATE webhook_deliveries SET status = 'pending', claim = NULL
      WHERE status = 'in_flight' AND id = ? AND claim = ?`),
    // Only while it is still the caller's claim (see the port's contract).
    finish: db.prepare(`UPDATE webhook_deliveries SET status = @status, attempts = attempts + 1,
      next_attempt_at = @next, updated_at = @now, last_status_code = @code, last_error = @error, claim = NULL
      WHERE id = @id AND status = 'in_flight' AND claim = @claim`),
    insertAttempt:
      db.prepare(`INSERT INTO webhook_attempts (delivery_id, attempt_no, at, status_code, latency_ms,
      error, response_body, outcome, claim, fence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    pause: db.prepare('UPDATE webhook_endpoints SET paused_until = ? WHERE id = ?'),
    // When the next claim can happen: the earliest head of a chain, once its endpoint's pause is over.
    nextDue: db.prepare('SELECT MIN(due_at) AS at FROM webhook_chains').pluck(),
    oldestClaim: db
      .prepare(`SELECT MIN(updated_at) FROM webhook_deliveries WHERE status = 'in_flight'`)
      .pluck(),
    fedAlready: db
      .prepare(
        'SELECT 1 FROM webhook_deliveries WHERE endpoint_id = ? AND event_id = ? AND replay_of IS NULL',
      )
      .pluck(),
    originals: db.prepare(`SELECT id FROM webhook_deliveries WHERE endpoint_id = ? AND replay_of IS NULL
      AND created_at >= ? AND created_at <= ? ORDER BY id`),
  };

  const delivery = (id: number): Delivery | undefined => {
    const r = s.delivery.get(id) as Row | undefined;
    return r && toDelivery(r);
  };

  const pauseEndpoint = (id: string, until: number) => {
    s.pause.run(until, id);
    chains.refreshEndpoint(id);
  };

  /** A replay is a new delivery with the same webhook-id and the same bytes; the original keeps its history. */
  const replay = (deliveryId: number): Delivery | undefined => {
    const r = s.delivery.get(deliveryId) as Row | undefined;
    if (!r) return undefined;
    const d = toDelivery(r);
    const event = { id: d.eventId, type: d.eventType, stream: d.stream, seq: d.seq };
    return delivery(chains.insert(d.endpointId, event, r.body as string, now(), d.id));
  };

  /** Claims up to `limit` heads due at `at`, within each endpoint's cap, in one transaction. */
  const claim = (at: number, limit: number, o: ClaimOptions): ClaimedDelivery[] => {
    const busy = new Map<string, number>();
    for (const r of s.inFlightByEndpoint.all() as { endpoint_id: string; n: number }[])
      busy.set(r.endpoint_id, r.n);
    const heads = (s.due.all({ now: at, limit: limit * 4 + 32 }) as Row[]).map(toDelivery);
    const claimed: ClaimedDelivery[] = [];
    const kinds = new Map<string, EndpointKind | undefined>();
    for (const d of heads) {
      if (claimed.length >= limit) break;
      if (!kinds.has(d.endpointId)) kinds.set(d.endpointId, s.kind.get(d.endpointId) as EndpointKind);
      const kind = kinds.get(d.endpointId);
      const n = busy.get(d.endpointId) ?? 0;
      if (!kind || n >= (kind === 'standard' ? o.perEndpoint : 1)) continue;
      busy.set(d.endpointId, n + 1);
      const number = s.nextClaim.get() as number;
      s.markInFlight.run(at, number, o.fence ?? null, d.id);
      chains.refresh(d.endpointId, d.stream);
      if (kind !== 'standard') pauseEndpoint(d.endpointId, at + o.chatMinIntervalMs);
      claimed.push({ ...d, status: 'in_flight', claim: number, fence: o.fence ?? null });
    }
    return claimed;
  };

  const sync = {
    feedCursor: (): string => chains.state('feed_cursor', FEED_START),

    enqueueFromFeed: (step: FeedStep): 'stale' | { enqueued: number } =>
      db
        .transaction(() => {
          if (chains.state('feed_cursor', FEED_START) !== step.from) return 'stale' as const;
          if (chains.state('endpoints_version', '0') !== step.endpointsVersion) return 'stale' as const;
          const at = now();
          let enqueued = 0;
          for (const p of step.deliveries) {
            if (s.fedAlready.get(p.endpointId, p.event.id) !== undefined) continue;
            chains.insert(p.endpointId, p.event, p.body, at, null);
            enqueued++;
          }
          chains.setState('feed_cursor', step.to);
          return { enqueued };
        })
        .immediate(),

    enqueue: (p: PlannedDelivery): Delivery | undefined =>
      db.transaction(() =>
        s.kind.get(p.endpointId) === undefined
          ? undefined
          : delivery(chains.insert(p.endpointId, p.event, p.body, now(), null)),
      )(),

    replay: (deliveryId: number) => db.transaction(() => replay(deliveryId))(),

    replayRange: (endpointId: string, from: number, to: number): number =>
      db.transaction(() => {
        const originals = s.originals.all(endpointId, from, to) as { id: number }[];
        for (const o of originals) replay(o.id);
        return originals.length;
      })(),

    claimDue: (at: number, limit: number, o: ClaimOptions): ClaimedDelivery[] =>
      db.transaction(() => claim(at, limit, o))(),

    /** Logs the attempt and, while the claim holds, the delivery's new state, in one transaction. */
    recordAttempt: (d: ClaimedDelivery, a: AttemptRecord, next: NextState): boolean =>
      db.transaction(() => {
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
        if (next.status === 'delivered' || next.status === 'failed') chains.advance(d.endpointId, d.stream);
        else chains.refresh(d.endpointId, d.stream);
        return true;
      })(),

    /** A claim is made at its delivery's `updated_at`. */
    recoverInFlight: (which: readonly HeldClaim[] | { claimedBefore: number }): number =>
      db.transaction(() => {
        const n =
          'claimedBefore' in which
            ? s.recoverExpired.run(which.claimedBefore).changes
            : which.reduce((sum, c) => sum + s.recoverOne.run(c.id, c.claim).changes, 0);
        // Runs every dispatcher turn: the chains change only when a claim was released.
        if (n > 0) chains.refreshAll();
        return n;
      })(),

    pauseEndpoint: (id: string, until: number) => db.transaction(() => pauseEndpoint(id, until))(),

    wakeTimes: () => ({
      nextDueAt: s.nextDue.get() as number | null,
      oldestClaimAt: s.oldestClaim.get() as number | null,
    }),
  } satisfies Sync<WebhookQueue>;
  return sync;
}
