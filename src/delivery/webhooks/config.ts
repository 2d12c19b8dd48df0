/** Settings of the webhook service, with their defaults (each documented in docs/webhooks.md). */
import type { Clock } from '../../clock.js';
import {
  type AuthFailures,
  createAuthFailures,
  DEFAULT_AUTH_FAILURE_LIMITS,
} from '../../http/auth-failures.js';

export interface WebhookConfig {
  /** Bearer token of the endpoints API. Unset: the API answers requests from loopback addresses only. */
  adminToken?: string;
  /**
   * Failed tokens per client address, shared with the subscriber keys so one count covers every credential.
   * @default AUTH_FAILURE_LIMITS on the service's clock
   */
  authFailures?: AuthFailures;
  /** Allow URLs on loopback/private/reserved networks (tests, local demos). @default false */
  allowPrivateNetworks?: boolean;
  /** Hosts (exact names) or CIDRs/addresses allowed even though private, e.g. `127.0.0.1/32`. @default [] */
  allowedHosts?: string[];
  /** Attempts in flight at once, over all endpoints. @default 32 */
  concurrency?: number;
  /** Attempts in flight at once to one endpoint (on different races); chat endpoints get one. @default 4 */
  perEndpointConcurrency?: number;
  /** Whole-attempt timeout (connect, send, response). @default 15000 */
  timeoutMs?: number;
  /** Delays before retry 1, 2, ...; after the last, the delivery is marked failed. @default 5 s ... 10 h */
  retrySchedule?: number[];
  /** Jitter as a fraction of the delay (delay * (1 +/- jitter)). @default 0.1 */
  jitter?: number;
  /** An endpoint failing without a success for this long is disabled. @default 5 days */
  disableAfterMs?: number;
  /** How long a rotated-out secret keeps signing beside the new one. @default 24 h */
  rotationOverlapMs?: number;
  /** Least time between two messages to one Slack or Discord URL. @default 1000 */
  chatMinIntervalMs?: number;
  /** How often the dispatcher looks for due deliveries when nothing wakes it. @default 1000 */
  pollIntervalMs?: number;
  /** How long delivered and failed deliveries (with their attempts) are kept for inspection and replay.
   * Owed deliveries are never pruned. A day keeps a race day's history for replay while bounding the
   * outbox (the soak found 7 days let it reach ~56k Redis keys in 1.5 race days). @default 24 h */
  retentionMs?: number;
  /** Longest Retry-After honoured as given; longer values are capped. @default 24 h */
  maxRetryAfterMs?: number;
}

const MIN = 60_000;
const HOUR = 60 * MIN;

export const DEFAULT_RETRY_SCHEDULE = [5_000, 5 * MIN, 30 * MIN, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];

export type ResolvedWebhookConfig = Required<Omit<WebhookConfig, 'adminToken'>> & { adminToken?: string };

export function resolveWebhookConfig(config: WebhookConfig, wall: Clock): ResolvedWebhookConfig {
  return {
    adminToken: config.adminToken,
    authFailures: config.authFailures ?? createAuthFailures(DEFAULT_AUTH_FAILURE_LIMITS, wall),
    allowPrivateNetworks: config.allowPrivateNetworks ?? false,
    allowedHosts: config.allowedHosts ?? [],
    concurrency: config.concurrency ?? 32,
    perEndpointConcurrency: config.perEndpointConcurrency ?? 4,
    timeoutMs: config.timeoutMs ?? 15_000,
    retrySchedule: config.retrySchedule ?? DEFAULT_RETRY_SCHEDULE,
    jitter: config.jitter ?? 0.1,
    disableAfterMs: config.disableAfterMs ?? 5 * 24 * HOUR,
    rotationOverlapMs: config.rotationOverlapMs ?? 24 * HOUR,
    chatMinIntervalMs: config.chatMinIntervalMs ?? 1000,
    pollIntervalMs: config.pollIntervalMs ?? 1000,
    maxRetryAfterMs: config.maxRetryAfterMs ?? 24 * HOUR,
    retentionMs: config.retentionMs ?? 24 * HOUR,
  };
}
