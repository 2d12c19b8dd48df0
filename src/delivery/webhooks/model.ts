/**
 * The webhook model, owned by neither storage adapter: an endpoint (where and what to send, with its secrets
 * and health), a delivery (one event owed to one endpoint) and an attempt (one try at sending it). The ports
 * (ports.ts) speak these types; each adapter maps its own storage (SQLite rows, Redis hashes) to them.
 */
import { randomBytes } from 'node:crypto';
import type { RaceEvent } from '../../events/envelope.js';
import type { EndpointFilters } from './endpoint-match.js';

/** `standard` endpoints get signed Standard Webhooks posts; chat endpoints get their service's message. */
export type EndpointKind = 'standard' | 'slack' | 'discord';

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

/** How much of a response body an attempt keeps. */
export const RESPONSE_BODY_LIMIT = 1024;

export const newEndpointId = () => `ep_${randomBytes(12).toString('base64url')}`;
