/**
 * The `webhook_endpoints` table: registered endpoints, their secrets and health. The outbox composes it with
 * the delivery tables and adds what touches both (re-enabling, disabling, deleting).
 */
import type { Database } from '../../../store/sqlite/database.js';
import { openSecrets, type SecretCodec } from '../secret-codec.js';
import {
  type EndpointPatch,
  type EndpointWithSecrets,
  type NewEndpoint,
  type Row,
  toEndpoint,
} from './rows.js';

/** The stored fields of a new endpoint, its secret sealed: SQLite columns and Redis hash fields have the
 * same names. */
export const newEndpointFields = (e: NewEndpoint, secrets: SecretCodec) => ({
  id: e.id,
  url: e.url,
  kind: e.kind,
  description: e.description,
  event_types: JSON.stringify(e.eventTypes),
  filters: JSON.stringify(e.filters),
  enabled: e.enabled ? 1 : 0,
  secret: secrets.seal(e.id, e.secret),
});

/** The stored fields a patch sets, by name, leaving out what it does not change. */
export function patchedFields(patch: EndpointPatch): Array<[column: string, value: string | number]> {
  const columns = [
    ['url', patch.url],
    ['description', patch.description],
    ['event_types', patch.eventTypes && JSON.stringify(patch.eventTypes)],
    ['filters', patch.filters && JSON.stringify(patch.filters)],
    ['enabled', patch.enabled === undefined ? undefined : patch.enabled ? 1 : 0],
  ] as const;
  return columns.flatMap(([column, value]) => (value === undefined ? [] : [[column, value]]));
}

export function createEndpointStore(db: Database, now: () => number, secrets: SecretCodec) {
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
    pause: db.prepare('UPDATE webhook_endpoints SET paused_until = ? WHERE id = ?'),
    health: db.prepare(`SELECT COALESCE(SUM(enabled = 1 AND failing_since IS NOT NULL), 0) AS failing,
      COALESCE(SUM(enabled = 0), 0) AS disabled FROM webhook_endpoints`),
  };

  const read = (r: Row) => openSecrets(secrets, toEndpoint(r));
  const endpoint = (id: string): EndpointWithSecrets | undefined => {
    const r = s.one.get(id) as Row | undefined;
    return r && read(r);
  };

  return {
    endpoint,
    listEndpoints: (): EndpointWithSecrets[] => (s.all.all() as Row[]).map(read),
    enabledEndpoints: (): EndpointWithSecrets[] => (s.enabled.all() as Row[]).map(read),

    createEndpoint(e: NewEndpoint): EndpointWithSecrets {
      s.insert.run({ ...newEndpointFields(e, secrets), now: now() });
      return endpoint(e.id) as EndpointWithSecrets;
    },

    /** Updates the given fields; re-enabling clears the reason, the failure clock and any pause. */
    updateRow(id: string, patch: EndpointPatch): boolean {
      const sets: string[] = ['updated_at = @now'];
      const values: Record<string, unknown> = { id, now: now() };
      for (const [column, value] of patchedFields(patch)) {
        sets.push(`${column} = @${column}`);
        values[column] = value;
      }
      if (patch.enabled) sets.push('disabled_reason = NULL', 'failing_since = NULL', 'paused_until = 0');
      return (
        db.prepare(`UPDATE webhook_endpoints SET ${sets.join(', ')} WHERE id = @id`).run(values).changes > 0
      );
    },

    removeRow: (id: string): boolean => s.remove.run(id).changes > 0,

    rotateSecret(id: string, secret: string, overlapMs: number): EndpointWithSecrets | undefined {
      const at = now();
      const sealed = secrets.seal(id, secret);
      return s.rotate.run(at + overlapMs, sealed, at, id).changes === 0 ? undefined : endpoint(id);
    },

    disableRow: (id: string, reason: string) => void s.disable.run(reason, now(), id),
    pauseRow: (id: string, until: number) => void s.pause.run(until, id),

    /** Records whether the endpoint is failing: the clock starts at its first failure, a success stops it. */
    markEndpointHealth(id: string, failed: boolean, at: number): number | null {
      if (!failed) {
        s.healthy.run(id);
        return null;
      }
      s.failing.run(at, id);
      return endpoint(id)?.failingSince ?? null;
    },

    endpointHealth: () => s.health.get() as { failing: number; disabled: number },
  };
}

export type EndpointStore = ReturnType<typeof createEndpointStore>;
