/** A webhook service on a fastify app, a manual clock and a local receiver, for integration tests. */
import Fastify, { type FastifyInstance } from 'fastify';
import { type Bus, createMemoryBus } from '../../../src/bus/bus.js';
import { createManualClock, type ManualClock } from '../../../src/clock.js';
import type { Sender } from '../../../src/delivery/webhooks/dispatch/sender.js';
import {
  registerWebhooks,
  type WebhookConfig,
  type WebhookService,
} from '../../../src/delivery/webhooks/index.js';
import type { LogEntry } from '../../../src/events/envelope.js';
import type { BackendUnderTest } from './backends.js';
import { type Responder, resetSeqs, silentLogger, startReceiver, until } from './helpers.js';

type Stats = Awaited<ReturnType<WebhookService['stats']>>;

export async function startHarness(opts: {
  backend: BackendUnderTest;
  respond?: Responder;
  config?: WebhookConfig;
  start?: number;
  bus?: Bus;
  clock?: ManualClock;
  /** Replaces the HTTP sender (the receiver then gets nothing). */
  send?: Sender;
  /** @default true */
  dispatch?: boolean;
  /** Keep event numbering (a second node on the same store). */
  keepSeqs?: boolean;
  /** This node's lease term (the dispatcher's `fence`) and what it does when a claim is fenced. */
  fence?: () => number | undefined;
  onFenced?: () => void;
}) {
  if (!opts.keepSeqs) resetSeqs();
  const { backend } = opts;
  const receiver = await startReceiver(opts.respond);
  const clock = opts.clock ?? createManualClock(opts.start ?? Date.now());
  const bus = opts.bus ?? createMemoryBus();
  const app = Fastify({ loggerInstance: silentLogger }) as unknown as FastifyInstance;
  const service = await registerWebhooks(app, {
    store: backend.store(() => clock.now()),
    dispatch: opts.dispatch,
    bus,
    clock,
    // Timestamps follow the manual clock too, so tests can assert them.
    signingClock: clock,
    logger: silentLogger,
    // A long poll interval: the dispatcher must wake exactly when work is due, not by polling.
    config: { allowedHosts: ['127.0.0.1'], timeoutMs: 2000, pollIntervalMs: 3_600_000, ...opts.config },
    send: opts.send,
    random: () => 0.5,
    fence: opts.fence,
    onFenced: opts.onFenced,
  });
  await app.ready();

  async function createEndpoint(body: Record<string, unknown> = {}) {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/webhooks/endpoints',
      payload: { url: `${receiver.url}/hook`, ...body },
    });
    if (res.statusCode !== 201) throw new Error(`create failed: ${res.body}`);
    return res.json() as { endpoint: { id: string }; secret: string };
  }

  async function deliveries(endpointId: string) {
    const res = await app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${endpointId}/deliveries` });
    return (
      res.json() as {
        deliveries: {
          id: number;
          status: string;
          eventId: string;
          attempts: number;
          replayOf: number | null;
        }[];
      }
    ).deliveries;
  }

  async function attempts(deliveryId: number) {
    const res = await app.inject({ method: 'GET', url: `/v1/webhooks/deliveries/${deliveryId}` });
    return (
      res.json() as {
        attempts: {
          at: string;
          statusCode: number | null;
          outcome: string;
          error: string | null;
          responseBody: string;
          latencyMs: number;
        }[];
      }
    ).attempts;
  }

  return {
    app,
    service,
    receiver,
    clock,
    bus,
    createEndpoint,
    deliveries,
    attempts,
    /** Appends as the event log does, waking the service. */
    enqueue: (entries: LogEntry[]) => backend.enqueue(service, bus, entries),
    /** Awaits the service's stats matching `pred`. */
    untilStats: (pred: (s: Stats) => boolean, what: string) =>
      until(async () => pred(await service.stats()), what),
    /** Awaits every loop asleep on the clock with nothing in flight: all that is due now has been sent and
     * recorded, and the next wake-up is set from the outbox (so advancing the clock is exact). */
    async idle(what = 'idle') {
      // A SQLite enqueue wakes the dispatcher on the next turn.
      await new Promise<void>((r) => setImmediate(r));
      await until(
        async () => clock.pending() === backend.loops && (await service.stats()).inFlight === 0,
        what,
      );
    },
    async close() {
      await service.close();
      await app.close();
      await receiver.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;
