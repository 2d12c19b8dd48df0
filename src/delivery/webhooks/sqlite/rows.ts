/** Row shapes of the outbox tables and their mapping to the public types. */
import { randomBytes } from 'node:crypto';
import type { RaceEvent } from '../../../events/envelope.js';
import type { EndpointKind } from '../dispatch/retry-policy.js';
import type { EndpointFilters } from '../endpoint-match.js';

export interface Endpoint {
  id: string;
  url: string;
  kind: EndpointKind;
  description: string;
  eventTypes: string[];
  filters: EndpointFilters;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface EndpointWithSecrets extends Endpoint {
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: number | null;
  pausedUntil: number;
}

/** What an endpoint's creator gives, and what an update may change. */
export type EndpointPatch = Partial<
  Pick<Endpoint, 'url' | 'description' | 'eventTypes' | 'filters' | 'enabled'>
>;
export type NewEndpoint = Omit<Endpoint, 'createdAt' | 'updatedAt' | 'disabledReason' | 'failingSince'> & {
  secret: string;
};

export type DeliveryStatus = 'pending' | 'in_flight' | 'delivered' | 'failed';

export interface Delivery {
  id: number;
  endpointId: string;
  eventId: string;
  eventType: string;
  stream: string;
  seq: number;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number;
  createdAt: number;
  updatedAt: number;
  lastStatusCode: number | null;
  lastError: string | null;
  replayOf: number | null;
}

export interface Attempt {
  id: number;
  deliveryId: number;
  attemptNo: number;
  at: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseBody: string;
  outcome: string;
  /** The claim the attempt was made under and its lease term's fencing token (null before claims had them). */
  claim: number | null;
  fence: number | null;
}

/** Formats the body for an endpoint; undefined means this endpoint gets no message for the event. */
export type BodyFormatter = (kind: EndpointKind, event: RaceEvent) => string | undefined;

export const RESPONSE_BODY_LIMIT = 1024;

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

/** Public view of an endpoint: never its secrets. */
export const publicEndpoint = (e: EndpointWithSecrets): Endpoint => {
  const { secret, previousSecret, previousSecretExpiresAt, pausedUntil, ...rest } = e;
  return rest;
};

export const newEndpointId = () => `ep_${randomBytes(12).toString('base64url')}`;
