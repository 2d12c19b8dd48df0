/**
 * The SQLite endpoints: the `webhook_endpoints` table, its secrets sealed by the codec. Changes that also
 * touch what the endpoint is owed (re-enabling, disabling, deleting) run in one transaction with the chains.
 */
import type { Database } from '../../../store/sqlite/database.js';
import type { EndpointPatch, EndpointWithSecrets, NewEndpoint } from '../model.js';
import type { WebhookEndpoints } from '../ports.js';
import { openSecrets, type SecretCodec } from '../secret-codec.js';
import type { Chains, Sync } from './chains.js';
import { newEndpointColumns, patchedColumns, type Row, toEndpoint } from './rows.js';

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the endpoints port over SQLite: its methods share the prepared statements, and each is short
export function createSqliteEndpoints(db: Database, chains: Chains, now: () => number, secrets: SecretCodec) {
  const s = {
    enabled: db.prepare('SELECT * FROM webhook_endpoints WHERE enabled = 1'),
    all: db.prepare('SELECT * FROM webhook_endpoints ORDER BY created_at, id'),
    one: db.prepare('SELECT * FROM webhook_endpoints WHERE id = ?'),
    insert: db.prepare(`INSERT INTO webhook_endpoints (id, url, kind, description, event_types, filters,
      enabled, secret, created_at, updated_at) VALUES (@id, @url, @kind, @description, @event_types, @filters,
      @enabled, @secret, @now, @now)`),
    remove: db.prepare('DELETE FROM webhook_endpoints WHERE id = ?'),
    rotate: db.prepare(`UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = ?,
      secret = ?, updated_at = ? WHERE id = ?`),
    disable: db.prepare(
      'UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?',
    ),
    healthy: db.prepare(
      'UPDATE webhook_endpoints SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL',
    ),
    failing: db.prepare(
      'UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, ?) WHERE id = ?',
    ),
    health: db.prepare(`SELECT COALESCE(SUM(enabled = 1 AND failing_since IS NOT NULL), 0) AS failing,
      COALESCE(SUM(enabled = 0), 0) AS disabled FROM webhook_endpoints`),
    resume: db.prepare(`UPDATE webhook_deliveries SET next_attempt_at = MIN(next_attempt_at, ?)
      WHERE endpoint_id = ? AND status = 'pending'`),
    deleteAttempts: db.prepare(`DELETE FROM webhook_attempts WHERE delivery_id IN
      (SELECT id FROM webhook_deliveries WHERE endpoint_id = ?)`),
    deleteDeliveries: db.prepare('DELETE FROM webhook_deliveries WHERE endpoint_id = ?'),
    deleteChains: db.prepare('DELETE FROM webhook_chains WHERE endpoint_id = ?'),
  };

  const read = (r: Row) => openSecrets(secrets, toEndpoint(r));
  const endpoint = (id: string): EndpointWithSecrets | undefined => {
    const r = s.one.get(id) as Row | undefined;
    return r && read(r);
  };

  /** Sets the given columns; re-enabling clears the reason, the failure clock and any pause. */
  const updateRow = (id: string, patch: EndpointPatch): boolean => {
    const sets: string[] = ['updated_at = @now'];
    const values: Record<string, unknown> = { id, now: now() };
    for (const [column, value] of patchedColumns(patch)) {
      sets.push(`${column} = @${column}`);
      values[column] = value;
    }
    if (patch.enabled) sets.push('disabled_reason = NULL', 'failing_since = NULL', 'paused_until = 0');
    return (
      db.prepare(`UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = @id`).run(values).changes > 0
    );
  };

  const sync = {
    endpoint,
    listEndpoints: (): EndpointWithSecrets[] => (s.all.all() as Row[]).map(read),
    enabledEndpoints: () =>
      db.transaction(() => ({
        version: chains.state('endpoints_version', '0'),
        endpoints: (s.enabled.all() as Row[]).map(read),
      }))(),

    createEndpoint: (e: NewEndpoint): EndpointWithSecrets =>
      db.transaction(() => {
        chains.endpointsChanged();
        s.insert.run({ ...newEndpointColumns(e, secrets), now: now() });
        return endpoint(e.id) as EndpointWithSecrets;
      })(),

    /** Re-enabling makes the endpoint's held deliveries due now. */
    updateEndpoint: (id: string, patch: EndpointPatch): EndpointWithSecrets | undefined =>
      db.transaction(() => {
        if (!updateRow(id, patch)) return undefined;
        chains.endpointsChanged();
        if (patch.enabled) s.resume.run(now(), id);
        if (patch.enabled !== undefined) chains.refreshEndpoint(id);
        return endpoint(id);
      })(),

    deleteEndpoint: (id: string): boolean =>
      db.transaction(() => {
        s.deleteAttempts.run(id);
        s.deleteDeliveries.run(id);
        s.deleteChains.run(id);
        chains.endpointsChanged();
        return s.remove.run(id).changes > 0;
      })(),

    rotateSecret(id: string, secret: string, overlapMs: number): EndpointWithSecrets | undefined {
      const at = now();
      const sealed = secrets.seal(id, secret);
      return s.rotate.run(at + overlapMs, sealed, at, id).changes === 0 ? undefined : endpoint(id);
    },

    disableEndpoint: (id: string, reason: string) =>
      db.transaction(() => {
        s.disable.run(reason, now(), id);
        chains.endpointsChanged();
        chains.refreshEndpoint(id);
      })(),

    /** The clock starts at the first failure; a success stops it. */
    markEndpointHealth(id: string, failed: boolean, at: number): number | null {
      if (!failed) {
        s.healthy.run(id);
        return null;
      }
      s.failing.run(at, id);
      return endpoint(id)?.failingSince ?? null;
    },

    endpointHealth: () => s.health.get() as { failing: number; disabled: number },
  } satisfies Sync<WebhookEndpoints>;
  return sync;
}
