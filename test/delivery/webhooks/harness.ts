/** A webhook service on a fastify app, a manual clock and a local receiver, for integration tests. */
import Fastify, { type FastifyInstance } from 'fastify';
import type { Bus } from '../../../src/bus/bus.js';
import { createManualClock } from '../../../src/clock.js';
import { registerWebhooks, type WebhookConfig } from '../../../src/delivery/webhooks/index.js';
import { openMemoryDb, type Responder, resetSeqs, silentLogger, startReceiver } from './helpers.js';

export async function startHarness(
  opts: { respond?: Responder; config?: WebhookConfig; start?: number; bus?: Bus } = {},
) {
  resetSeqs();
  const receiver = await startReceiver(opts.respond);
  const clock = createManualClock(opts.start ?? Date.now());
  const db = openMemoryDb();
  const app = Fastify({ loggerInstance: silentLogger }) as unknown as FastifyInstance;
  const service = await registerWebhooks(app, {
    db,
    bus: opts.bus,
    clock,
    // Timestamps follow the manual clock too, so tests can assert them.
    signingClock: clock,
    logger: silentLogger,
    // A long poll interval: the dispatcher must wake exactly when work is due, not by polling.
    config: { allowedHosts: ['127.0.0.1'], timeoutMs: 2000, pollIntervalMs: 3_600_000, ...opts.config },
    random: () => 0.5,
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
    return (res.json() as { deliveries: { id: number; status: string; eventId: string; attempts: number }[] })
      .deliveries;
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
    db,
    createEndpoint,
    deliveries,
    attempts,
    async close() {
      await service.close();
      await app.close();
      await receiver.close();
      db.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;
