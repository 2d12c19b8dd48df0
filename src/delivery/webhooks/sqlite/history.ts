/** The SQLite history: deliveries and their attempts as sent, read by the API and pruned by the dispatcher. */
import type { Database } from '../../../store/sqlite/database.js';
import type { Attempt, Delivery, DeliveryStatus } from '../model.js';
import type { WebhookHistory } from '../ports.js';
import type { Sync } from './chains.js';
import { type Row, toAttempt, toDelivery } from './rows.js';

export function createSqliteHistory(db: Database) {
  const s = {
    delivery: db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?'),
    list: db.prepare(`SELECT * FROM webhook_deliveries WHERE endpoint_id = @endpointId
      AND (@status IS NULL OR status = @status) AND (@beforeId IS NULL OR id < @beforeId)
      ORDER BY id DESC LIMIT @limit`),
    body: db.prepare('SELECT body FROM webhook_deliveries WHERE id = ?').pluck(),
    attempts: db.prepare('SELECT * FROM webhook_attempts WHERE delivery_id = ? ORDER BY attempt_no'),
    counts: db.prepare('SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status'),
    pruneAttempts:
      db.prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM webhook_deliveries
      WHERE status IN ('delivered', 'failed') AND updated_at < ?)`),
    pruneDeliveries: db.prepare(
      `DELETE FROM webhook_deliveries WHERE status IN ('delivered', 'failed') AND updated_at < ?`,
    ),
  };

  return {
    delivery(id: number): Delivery | undefined {
      const r = s.delivery.get(id) as Row | undefined;
      return r && toDelivery(r);
    },

    listDeliveries: (
      endpointId: string,
      q: { status?: DeliveryStatus; limit: number; beforeId?: number },
    ): Delivery[] =>
      (
        s.list.all({
          endpointId,
          status: q.status ?? null,
          beforeId: q.beforeId ?? null,
          limit: q.limit,
        }) as Row[]
      ).map(toDelivery),

    body: (id: number): string | undefined => (s.body.get(id) as string | undefined) ?? undefined,

    attempts: (deliveryId: number): Attempt[] => (s.attempts.all(deliveryId) as Row[]).map(toAttempt),

    counts(): Record<DeliveryStatus, number> {
      const out: Record<DeliveryStatus, number> = { pending: 0, in_flight: 0, delivered: 0, failed: 0 };
      for (const r of s.counts.all() as { status: DeliveryStatus; n: number }[]) out[r.status] = r.n;
      return out;
    },

    /** Owed deliveries are kept. */
    prune: (before: number): number =>
      db.transaction(() => {
        s.pruneAttempts.run(before);
        return s.pruneDeliveries.run(before).changes;
      })(),
  } satisfies Sync<WebhookHistory>;
}
