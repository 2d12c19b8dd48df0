/** What the endpoints API answers: explicit views (never secrets, but for the admin's export), times as ISO 8601. */
import type { Attempt, Delivery, EndpointWithSecrets } from '../model.js';

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What an operator set on an endpoint: the part a view and an export share. */
const endpointSettings = (e: EndpointWithSecrets) => ({
  id: e.id,
  url: e.url,
  kind: e.kind,
  description: e.description,
  eventTypes: e.eventTypes,
  filters: e.filters,
  enabled: e.enabled,
});

/** An endpoint for a backup (`endpoints:export`): its settings and its signing secret, nothing else. */
export const endpointToExport = (e: EndpointWithSecrets) => ({ ...endpointSettings(e), secret: e.secret });

export const endpointToView = (e: EndpointWithSecrets, now: number) => ({
  ...endpointSettings(e),
  disabledReason: e.disabledReason,
  failingSince: isoOrNull(e.failingSince),
  previousSecretExpiresAt:
    e.previousSecret && (e.previousSecretExpiresAt ?? 0) > now ? isoOrNull(e.previousSecretExpiresAt) : null,
  createdAt: new Date(e.createdAt).toISOString(),
  updatedAt: new Date(e.updatedAt).toISOString(),
});

export const deliveryToView = (d: Delivery) => ({
  ...d,
  nextAttemptAt: new Date(d.nextAttemptAt).toISOString(),
  createdAt: new Date(d.createdAt).toISOString(),
  updatedAt: new Date(d.updatedAt).toISOString(),
});

export const attemptToView = (a: Attempt) => ({
  attemptNo: a.attemptNo,
  at: new Date(a.at).toISOString(),
  statusCode: a.statusCode,
  latencyMs: a.latencyMs,
  error: a.error,
  responseBody: a.responseBody,
  outcome: a.outcome,
});
