/**
 * The SQLite adapter's rows: the column names of the `webhook_*` tables (schema.ts) and their mapping to and
 * from the model (model.ts). Only the SQLite adapter uses them; the Redis adapter has its own hash mapping.
 */
import type { EndpointFilters } from '../endpoint-match.js';
import type {
  Attempt,
  Delivery,
  DeliveryStatus,
  EndpointKind,
  EndpointPatch,
  EndpointWithSecrets,
  NewEndpoint,
} from '../model.js';
import type { SecretCodec } from '../secret-codec.js';

export type Row = Record<string, unknown>;

/** When a chain's head may be sent: never while in flight or while its endpoint is disabled; not before the
 * endpoint's pause (rate limit) ends. Correlated on the webhook_chains row being updated. */
export const CHAIN_DUE_AT = `SELECT CASE WHEN d.status = 'pending' AND e.enabled = 1
    THEN MAX(d.next_attempt_at, e.paused_until) END
  FROM webhook_deliveries d, webhook_endpoints e
  WHERE d.id = webhook_chains.head_id AND e.id = webhook_chains.endpoint_id`;
export const toEndpoint = (r: Row): EndpointWithSecrets => ({
  id: r.id as string,
  url: r.url as string,
  kind: r.kind as EndpointKind,
  description: r.description as string,
  eventTypes: JSON.parse(r.event_types as string) as string[],
  filters: JSON.parse(r.filters as string) as EndpointFilters,
  enabled: r.enabled === 1,
  disabledReason: (r.disabled_reason as string | null) ?? null,
  failingSince: (r.failing_since as number | null) ?? null,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
  secret: r.secret as string,
  previousSecret: (r.previous_secret as string | null) ?? null,
  previousSecretExpiresAt: (r.previous_secret_expires_at as number | null) ?? null,
  pausedUntil: r.paused_until as number,
});
export const toDelivery = (r: Row): Delivery => ({
  id: r.id as number,
  endpointId: r.endpoint_id as string,
  eventId: r.event_id as string,
  eventType: r.event_type as string,
  stream: r.stream as string,
  seq: r.seq as number,
  status: r.status as DeliveryStatus,
  attempts: r.attempts as number,
  nextAttemptAt: r.next_attempt_at as number,
  createdAt: r.created_at as number,
  updatedAt: r.updated_at as number,
  lastStatusCode: (r.last_status_code as number | null) ?? null,
  lastError: (r.last_error as string | null) ?? null,
  replayOf: (r.replay_of as number | null) ?? null,
});
export const toAttempt = (r: Row): Attempt => ({
  id: r.id as number,
  deliveryId: r.delivery_id as number,
  attemptNo: r.attempt_no as number,
  at: r.at as number,
  statusCode: (r.status_code as number | null) ?? null,
  latencyMs: r.latency_ms as number,
  error: (r.error as string | null) ?? null,
  responseBody: r.response_body as string,
  outcome: r.outcome as string,
  claim: (r.claim as number | null) ?? null,
  fence: (r.fence as number | null) ?? null,
});

/** The columns of a new endpoint, its secret sealed. */
export const newEndpointColumns = (e: NewEndpoint, secrets: SecretCodec) => ({
  id: e.id,
  url: e.url,
  kind: e.kind,
  description: e.description,
  event_types: JSON.stringify(e.eventTypes),
  filters: JSON.stringify(e.filters),
  enabled: e.enabled ? 1 : 0,
  secret: secrets.seal(e.id, e.secret),
});

/** The columns a patch sets, by name, leaving out what it does not change. */
export function patchedColumns(patch: EndpointPatch): Array<[column: string, value: string | number]> {
  const columns = [
    ['url', patch.url],
    ['description', patch.description],
    ['event_types', patch.eventTypes && JSON.stringify(patch.eventTypes)],
    ['filters', patch.filters && JSON.stringify(patch.filters)],
    ['enabled', patch.enabled === undefined ? undefined : patch.enabled ? 1 : 0],
  ] as const;
  return columns.flatMap(([column, value]) => (value === undefined ? [] : [[column, value]]));
}
