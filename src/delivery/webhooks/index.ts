/**
 * Webhooks: the entry point. `registerWebhooks` opens the outbox on the given store (SQLite: tables in the
 * event log's database; Redis: keys shared by every node), registers the endpoints API under /v1/webhooks
 * and, unless told not to, dispatches. With SQLite the event log calls `service.enqueueForEntries` from its
 * onAppend (inside its transaction); with Redis a feed reader enqueues from the log's feed instead.
 */

import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
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
import type { Outbox } from './outbox-port.js';
import { createRedisFeeder, type RedisFeeder } from './redis-feed.js';
import { createRedisOutbox } from './redis-outbox.js';
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
export type { Outbox } from './outbox-port.js';

/** Where the outbox lives. Redis: the caller's client (never quit), keys under `<prefix>webhooks:`. */
export type WebhookStore = { kind: 'sqlite'; db: Database } | { kind: 'redis'; redis: Redis; prefix: string };

export interface WebhookDeps {
  store: WebhookStore;
  /** Start dispatching at once. In multi-node mode pass false and call `setDispatching` as the poller
   * lease is won and lost. @default true */
  dispatch?: boolean;
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
  /**
   * SQLite: synchronous, inserts the deliveries owed for these entries; call it inside the append's
   * transaction. Answers how many. Redis: the log's feed carries events to the outbox, so this only wakes
   * the feed reader sooner and answers 0.
   */
  enqueueForEntries(entries: LogEntry[]): number;
  /**
   * On: makes every delivery in flight owed again (a dead node's claims included: at least once, same
   * `webhook-id`), then dispatches (and, on Redis, reads the feed). Off: stops claiming and reading, lets
   * attempts in flight finish (up to the timeout) and releases the rest as owed. Only one node of a
   * deployment may dispatch at a time: the one holding the poller lease.
   */
  setDispatching(on: boolean): Promise<void>;
  stats(): Promise<WebhookStats>;
  /** Stops dispatching (as setDispatching(false)); test and replay requests then answer 503. */
  close(): Promise<void>;
}

export async function registerWebhooks(app: FastifyInstance, deps: WebhookDeps): Promise<WebhookService> {
  const config = resolveWebhookConfig(deps.config);
  const resolve = deps.resolve ?? systemResolver;
  const now = () => deps.clock.now();
  const { store } = deps;
  const sqlite =
    store.kind === 'sqlite' ? createSqliteOutbox(store.db, { format: formatBody, now }) : undefined;
  const redisOutbox =
    store.kind === 'redis' ? createRedisOutbox({ redis: store.redis, prefix: store.prefix, now }) : undefined;
  const outbox = (sqlite ?? redisOutbox) as Outbox;
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
    onAttempt: deps.onAttempt,
  });
  const feeder: RedisFeeder | undefined =
    store.kind === 'redis' && redisOutbox
      ? createRedisFeeder({
          redis: store.redis,
          prefix: store.prefix,
          outbox: redisOutbox,
          clock: deps.clock,
          logger,
          pollIntervalMs: config.pollIntervalMs,
          onEnqueued: dispatcher.kick,
        })
      : undefined;
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
      }),
    { prefix: '/v1/webhooks' },
  );

  // New events wake the dispatcher (Redis: the feed reader, which then wakes it) sooner; the outbox (the
  // feed) is the source of truth.
  const wake = feeder?.kick ?? dispatcher.kick;
  const unsubscribe = deps.bus?.subscribe((entries) => {
    if (entries.some((e) => e.kind === 'event')) wake();
  });

  // One change of dispatching at a time, in call order.
  let switching: Promise<void> = Promise.resolve();
  const setDispatching = (on: boolean): Promise<void> => {
    const next = switching.then(async () => {
      if (on && !closing) {
        await dispatcher.start();
        feeder?.start();
      } else {
        await feeder?.stop();
        await dispatcher.stop();
      }
    });
    switching = next.catch(() => {});
    return next;
  };
  if (deps.dispatch ?? true) await setDispatching(true);

  return {
    enqueueForEntries(entries) {
      if (!sqlite) {
        if (entries.some((e) => e.kind === 'event')) wake();
        return 0;
      }
      const n = sqlite.enqueueForEntries(entries);
      // Wake after the surrounding transaction has committed (it is synchronous, so by the next turn).
      if (n > 0) setImmediate(dispatcher.kick);
      return n;
    },
    setDispatching,
    async stats() {
      const [deliveries, health] = await Promise.all([outbox.counts(), outbox.endpointHealth()]);
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

export { createSqliteOutbox } from './outbox.js';
export { createRedisFeeder } from './redis-feed.js';
export { createRedisOutbox } from './redis-outbox.js';
export { generateSecret, signDelivery } from './signer.js';
