/**
 * The Redis adapter's mapping between its hashes (and attempt JSON) and the model. The field names are those
 * of the SQLite columns (they are data, kept since the first release), but the mapping is this adapter's own.
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

/** Everything a hash holds is a string; absent fields are null. */
type Values = readonly (string | null)[];
const text = (v: string | null | undefined) => v ?? null;
const int = (v: string | null | undefined) => (v === null || v === undefined ? null : Number(v));

export const ENDPOINT_FIELDS = [
  'id',
  'url',
  'kind',
  'description',
  'event_types',
  'filters',
  'enabled',
  'disabled_reason',
  'failing_since',
  'paused_until',
  'secret',
  'previous_secret',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
] as const;

/** From `HMGET ENDPOINT_FIELDS`; undefined when the endpoint does not exist. Its secrets still sealed. */
export function endpointFromValues(v: Values): EndpointWithSecrets | undefined {
  const [id, url, kind, description, eventTypes, filters, enabled, reason, failingSince, pausedUntil] = v;
  const [secret, previousSecret, previousExpires, createdAt, updatedAt] = v.slice(10);
  if (!id) return undefined;
  return {
    id,
    url: url ?? '',
    kind: kind as EndpointKind,
    description: description ?? '',
    eventTypes: JSON.parse(eventTypes ?? '[]') as string[],
    filters: JSON.parse(filters ?? '{}') as EndpointFilters,
    enabled: enabled === '1',
    disabledReason: text(reason),
    failingSince: int(failingSince),
    createdAt: Number(createdAt),
    updatedAt: Number(updatedAt),
    secret: secret ?? '',
    previousSecret: text(previousSecret),
    previousSecretExpiresAt: int(previousExpires),
    pausedUntil: Number(pausedUntil ?? 0),
  };
}

/** The hash of a new endpoint, its secret sealed. */
export const newEndpointHash = (e: NewEndpoint, secrets: SecretCodec, at: number) => ({
  id: e.id,
  url: e.url,
  kind: e.kind,
  description: e.description,
  event_types: JSON.stringify(e.eventTypes),
  filters: JSON.stringify(e.filters),
  enabled: e.enabled ? 1 : 0,
  secret: secrets.seal(e.id, e.secret),
  paused_until: 0,
  created_at: at,
  updated_at: at,
});

/** The hash fields a patch sets, as field, value, field, value... (update-endpoint.lua's ARGV). */
export const patchedHashFields = (patch: EndpointPatch): Array<string | number> =>
  [
    ['url', patch.url],
    ['description', patch.description],
    ['event_types', patch.eventTypes && JSON.stringify(patch.eventTypes)],
    ['filters', patch.filters && JSON.stringify(patch.filters)],
    ['enabled', patch.enabled === undefined ? undefined : patch.enabled ? 1 : 0],
  ].flatMap(([field, value]) => (value === undefined ? [] : [field as string, value as string | number]));

/** Every delivery field but the body, which only the sender reads. */
export const DELIVERY_FIELDS = [
  'id',
  'endpoint_id',
  'event_id',
  'event_type',
  'stream',
  'seq',
  'status',
  'attempts',
  'next_attempt_at',
  'created_at',
  'updated_at',
  'last_status_code',
  'last_error',
  'replay_of',
] as const;

/** From the JSON the scripts keep per delivery (prelude.lua's putD); undefined when there is none. */
export function deliveryFromJson(json: string | null | undefined): Delivery | undefined {
  if (!json) return undefined;
  const d = JSON.parse(json) as Record<string, string | undefined>;
  return deliveryFromValues(DELIVERY_FIELDS.map((f) => d[f] ?? null));
}

/** From `DELIVERY_FIELDS` in order; undefined when the delivery does not exist. */
export function deliveryFromValues(v: Values): Delivery | undefined {
  const [id, endpointId, eventId, eventType, stream, seq, status, attempts, nextAttemptAt] = v;
  const [createdAt, updatedAt, lastStatusCode, lastError, replayOf] = v.slice(9);
  if (!id) return undefined;
  return {
    id: Number(id),
    endpointId: endpointId ?? '',
    eventId: eventId ?? '',
    eventType: eventType ?? '',
    stream: stream ?? '',
    seq: Number(seq),
    status: status as DeliveryStatus,
    attempts: Number(attempts),
    nextAttemptAt: Number(nextAttemptAt),
    createdAt: Number(createdAt),
    updatedAt: Number(updatedAt),
    lastStatusCode: int(lastStatusCode),
    lastError: text(lastError),
    replayOf: int(replayOf),
  };
}

/** The JSON of one attempt as record.lua stores it (snake_case, as since the first release), one a line. */
interface StoredAttempt {
  id: number;
  delivery_id: number;
  attempt_no: number;
  at: number;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_body: string;
  outcome: string;
  claim?: number | null;
  fence?: number | null;
}

export const attemptToJson = (a: Attempt): string =>
  JSON.stringify({
    id: a.id,
    delivery_id: a.deliveryId,
    attempt_no: a.attemptNo,
    at: a.at,
    status_code: a.statusCode,
    latency_ms: a.latencyMs,
    error: a.error,
    response_body: a.responseBody,
    outcome: a.outcome,
    claim: a.claim,
    fence: a.fence,
  });

/** The attempts of one delivery from its line-per-attempt log (record.lua). */
export const attemptsFromLog = (log: string | null | undefined): Attempt[] =>
  log ? log.split('\n').map(attemptFromJson) : [];

export function attemptFromJson(json: string): Attempt {
  const a = JSON.parse(json) as StoredAttempt;
  return {
    id: a.id,
    deliveryId: a.delivery_id,
    attemptNo: a.attempt_no,
    at: a.at,
    statusCode: a.status_code ?? null,
    latencyMs: a.latency_ms,
    error: a.error ?? null,
    responseBody: a.response_body,
    outcome: a.outcome,
    claim: a.claim ?? null,
    fence: a.fence ?? null,
  };
}
