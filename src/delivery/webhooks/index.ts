/**
 * Webhooks: the entry point. `registerWebhooks` creates the outbox tables in the given database, registers
 * the endpoints API under /v1/webhooks and starts the dispatcher. The event log calls
 * `service.enqueueForEntries` from its onAppend (inside its transaction).
 */

import type { FastifyInstance } from 'fastify';
import type { Bus } from '../../bus/bus.js';
import type { Clock } from '../../clock.js';
import type { LogEntry } from '../../events/envelope.js';
import type { Logger } from '../../logger.js';
import type { Database } from '../../store/sqlite/database.js';
import { resolveWebhookConfig, type WebhookConfig } from './config.js';
import { createDispatcher, type Outcome } from './dispatcher.js';
import { formatBody } from './formatters/index.js';
import { createHttpSender, type Sender } from './http-sender.js';
import { createSqliteOutbox, type DeliveryStatus } from './outbox.js';
import { webhookRoutes } from './routes.js';
import {
  createGuardedLookup,
  ForbiddenAddressError,
  isAllowedAddress,
  type Resolver,
  systemResolver,
} from './ssrf.js';

export type { WebhookConfig } from './config.js';
export type { Outcome } from './dispatcher.js';

export interface WebhookDeps {
  db: Database;
  bus?: Bus;
  clock: Clock;
  /** Wall-clock time for `webhook-timestamp` (see dispatcher.ts). @default systemClock */
  signingClock?: Clock;
  logger: Logger;
  config: WebhookConfig;
  /** DNS resolution for the SSRF checks (tests inject one). @default the system resolver */
  resolve?: Resolver;
  /** Replaces the HTTP sender (tests, benchmarks). */
  send?: Sender;
  /** Jitter source in [0, 1). @default Math.random */
  random?: () => number;
  /** Called after every attempt (metrics: racewire_webhook_attempts_total, racewire_webhook_attempt_seconds). */
  onAttempt?: (outcome: Outcome, latencyMs: number) => void;
}

export interface WebhookStats {
  /** Deliveries owed: pending or in flight (the outbox depth). */
  pending: number;
  /** Enabled endpoints whose last attempt failed (failing since some time, not yet disabled). */
  failing: number;
  /** Endpoints disabled (410, permanent errors, or failing for too long). */
  disabled: number;
  /** Deliveries by status in the outbox. */
  deliveries: Record<DeliveryStatus, number>;
  /** Attempts in flight in this process. */
  inFlight: number;
  /** Attempt outcomes since start. */
  outcomes: Record<Outcome, number>;
}

export interface WebhookService {
  /** Synchronous: inserts the deliveries owed for these entries. Call it inside the append's transaction. */
  enqueueForEntries(entries: LogEntry[]): number;
  stats(): WebhookStats;
  /** Stops taking new work; lets attempts in flight finish (up to the timeout) or releases them as owed. */
  close(): Promise<void>;
}

export async function registerWebhooks(app: FastifyInstance, deps: WebhookDeps): Promise<WebhookService> {
  const config = resolveWebhookConfig(deps.config);
  const resolve = deps.resolve ?? systemResolver;
  const outbox = createSqliteOutbox(deps.db, { format: formatBody, now: () => deps.clock.now() });
  const httpSender = deps.send
    ? undefined
    : createHttpSender({
        lookup: createGuardedLookup(config, resolve),
        timeoutMs: config.timeoutMs,
        checkAddressLiteral: (address) =>
          isAllowedAddress(address, config) ? undefined : new ForbiddenAddressError(address, address).message,
      });
  const send = deps.send ?? (httpSender as Sender);
  const { logger } = deps;
  const dispatcher = createDispatcher({
    outbox,
    clock: deps.clock,
    signingClock: deps.signingClock,
    logger,
    config,
    send,
    random: deps.random,
  });
  let closing = false;

  await app.register(
    async (scope) =>
      webhookRoutes(scope, {
        outbox,
        config,
        resolve,
        now: () => deps.clock.now(),
        kick: dispatcher.kick,
        isClosing: () => closing,
      }),
    { prefix: '/v1/webhooks' },
  );

  // The bus only wakes the dispatcher sooner; the outbox is the source of truth.
  const unsubscribe = deps.bus?.subscribe((entries) => {
    if (entries.some((e) => e.kind === 'event')) dispatcher.kick();
  });
  dispatcher.start();

  return {
    enqueueForEntries(entries) {
      const n = outbox.enqueueForEntries(entries);
      // Wake after the surrounding transaction has committed (it is synchronous, so by the next turn).
      if (n > 0) setImmediate(dispatcher.kick);
      return n;
    },
    stats() {
      const deliveries = outbox.counts();
      return {
        pending: deliveries.pending + deliveries.in_flight,
        ...outbox.endpointHealth(),
        deliveries,
        inFlight: dispatcher.inFlight(),
        outcomes: dispatcher.outcomes(),
      };
    },
    async close() {
      if (closing) return;
      closing = true;
      unsubscribe?.();
      await dispatcher.close();
      httpSender?.close();
    },
  };
}

export { createSqliteOutbox } from './outbox.js';
export { generateSecret, signDelivery } from './signer.js';
