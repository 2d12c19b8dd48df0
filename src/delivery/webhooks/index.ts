/**
 * Webhooks: the entry point. `registerWebhooks` takes the backend's outbox (SQLite: tables in the event log's
 * database; Redis: keys shared by every node) and the event log's feed, registers the endpoints API under
 * /v1/webhooks and, unless told not to, reads the feed into the outbox and dispatches.
 */

import type { FastifyInstance } from 'fastify';
import type { Bus } from '../../bus/bus.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { EventFeed } from '../../store/ports.js';
import { webhookRoutes } from './api/routes.js';
import { resolveWebhookConfig, type WebhookConfig } from './config.js';
import { createDispatcher, type Outcome } from './dispatch/dispatcher.js';
import { createFeedReader } from './dispatch/feed-reader.js';
import { createHttpSender, type Sender } from './dispatch/sender.js';
import {
  createGuardedLookup,
  ForbiddenAddressError,
  isAllowedAddress,
  type Resolver,
  systemResolver,
} from './dispatch/ssrf.js';
import type { DeliveryStatus } from './model.js';
import type { Outbox } from './ports.js';

export type { WebhookConfig } from './config.js';
export type { Outcome } from './dispatch/dispatcher.js';
export type { Outbox } from './ports.js';

/** Where deliveries are kept and where events come from: the backend's outbox and its event log's feed. */
export interface WebhookStore {
  outbox: Outbox;
  feed: EventFeed;
  /** An operator restored the endpoints from an export: a store that noticed it lost its data (a wiped
   * Redis) stops saying so. Absent where a loss is not detected (SQLite, memory). */
  restored?: () => Promise<void>;
}

export interface WebhookDeps {
  store: WebhookStore;
  /** Start dispatching at once. In multi-node mode pass false and call `setDispatching` as the poller
   * lease is won and lost. @default true */
  dispatch?: boolean;
  bus?: Bus;
  clock: Clock;
  /** Wall-clock time for `webhook-timestamp` (see dispatch/dispatcher.ts). @default systemClock */
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
  /** The fencing token of this node's lease term (claims carry it), undefined when not leading. Absent: one
   * node, always allowed to claim. */
  fence?: () => number | undefined;
  /** A claim was refused as fenced: this node's term is over. */
  onFenced?: () => void;
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
  /**
   * On: makes every delivery in flight owed again (a dead node's claims included: at least once, same
   * `webhook-id`), then reads the feed and dispatches. Off: stops claiming and reading, lets
   * attempts in flight finish (up to the timeout) and releases the rest as owed. Only one node of a
   * deployment may dispatch at a time: the one holding the poller lease.
   */
  setDispatching(on: boolean): Promise<void>;
  stats(): Promise<WebhookStats>;
  /** Stops dispatching (as setDispatching(false)); test and replay requests then answer 503. */
  close(): Promise<void>;
}

export async function registerWebhooks(app: FastifyInstance, deps: WebhookDeps): Promise<WebhookService> {
  const config = resolveWebhookConfig(deps.config, deps.clock);
  const resolve = deps.resolve ?? systemResolver;
  const now = () => deps.clock.now();
  const { outbox } = deps.store;
  const httpSender = deps.send
    ? undefined
    : createHttpSender({
        lookup: createGuardedLookup(config, resolve),
        timeoutMs: config.timeoutMs,
        checkAddressLiteral: (address) =>
          isAllowedAddress(address, config) ? undefined : new ForbiddenAddressError(address, address).message,
      });
  const send = deps.send ?? (httpSender as Sender);
  const dispatcher = createDispatcher({
    outbox,
    clock: deps.clock,
    signingClock: deps.signingClock,
    logger: deps.logger,
    config,
    send,
    random: deps.random,
    onAttempt: deps.onAttempt,
    fence: deps.fence,
    onFenced: deps.onFenced,
  });
  const feeder = createFeedReader({
    feed: deps.store.feed,
    outbox,
    clock: deps.clock,
    logger: deps.logger,
    pollIntervalMs: config.pollIntervalMs,
    onEnqueued: dispatcher.kick,
  });
  let closing = false;

  await app.register(
    async (scope) =>
      webhookRoutes(scope, {
        outbox,
        config,
        resolve,
        now,
        kick: dispatcher.kick,
        isClosing: () => closing,
        restored: deps.store.restored,
      }),
    { prefix: '/v1/webhooks' },
  );

  // New events wake the feed reader (which then wakes the dispatcher) sooner; the feed is the source of truth.
  const unsubscribe = deps.bus?.subscribe((entries) => {
    if (entries.some((e) => e.kind === 'event')) feeder.kick();
  });

  // One change of dispatching at a time, in call order.
  let switching: Promise<void> = Promise.resolve();
  const setDispatching = (on: boolean): Promise<void> => {
    const next = switching.then(async () => {
      if (on && !closing) {
        await dispatcher.start();
        feeder.start();
      } else {
        await feeder.stop();
        await dispatcher.stop();
      }
    });
    switching = next.catch(() => {});
    return next;
  };
  if (deps.dispatch ?? true) await setDispatching(true);

  return {
    setDispatching,
    async stats() {
      const [deliveries, health] = await Promise.all([
        outbox.history.counts(),
        outbox.endpoints.endpointHealth(),
      ]);
      return {
        pending: deliveries.pending + deliveries.in_flight,
        ...health,
        deliveries,
        inFlight: dispatcher.inFlight(),
        outcomes: dispatcher.outcomes(),
      };
    },
    async close() {
      if (closing) return;
      closing = true;
      unsubscribe?.();
      await setDispatching(false);
      httpSender?.close();
    },
  };
}

export { createFeedReader } from './dispatch/feed-reader.js';
export { generateSecret, signDelivery } from './dispatch/signer.js';
export { createRedisOutbox } from './redis/outbox.js';
export { createSqliteOutbox } from './sqlite/outbox.js';
