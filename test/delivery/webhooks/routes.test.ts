import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import {
  createFeedReader,
  createSqliteOutbox,
  registerWebhooks,
} from '../../../src/delivery/webhooks/index.js';
import type { LogEntry } from '../../../src/events/envelope.js';
import { buildApp } from '../../../src/http/app.js';
import { createSqliteEventLog } from '../../../src/store/sqlite/sqlite-event-log.js';
import { eventEntry, openMemoryDb, resetSeqs, silentLogger } from './helpers.js';

const TOKEN = 'admin-token-0123456789';
const auth = { authorization: `Bearer ${TOKEN}` };
const publicResolver = async () => [{ address: '93.184.216.34', family: 4 }];

async function setup(adminToken?: string, useBuildApp = false) {
  resetSeqs();
  const app: FastifyInstance = useBuildApp
    ? await buildApp({ logger: silentLogger })
    : (Fastify({ loggerInstance: silentLogger }) as unknown as FastifyInstance);
  const db = openMemoryDb();
  const clock = createManualClock(Date.parse('2026-11-22T10:00:00Z'));
  // An offline receiver: these tests are about the API; retries wait on the manual clock.
  const store = {
    outbox: createSqliteOutbox(db, { now: () => clock.now() }),
    feed: createSqliteEventLog({ db }).feed,
  };
  const service = await registerWebhooks(app, {
    store,
    clock,
    logger: silentLogger,
    config: { adminToken },
    resolve: publicResolver,
    send: async () => ({ headers: {}, body: '', error: 'offline' }),
  });
  await app.ready();
  /** Puts events in the feed as the log's append does, then reads the feed into the outbox once. */
  const feed = async (entries: LogEntry[]) => {
    const insert = db.prepare('INSERT INTO log_feed (entry) VALUES (?)');
    for (const e of entries) insert.run(JSON.stringify(e));
    return createFeedReader({ ...store, clock, logger: silentLogger, pollIntervalMs: 60_000 }).feedOnce();
  };
  return { app, service, clock, db, feed };
}

describe('webhook endpoints API', () => {
  let ctx: Awaited<ReturnType<typeof setup>>;
  afterEach(async () => {
    await ctx.service.close();
    await ctx.app.close();
  });

  const create = (payload: unknown, headers = auth) =>
    ctx.app.inject({ method: 'POST', url: '/v1/webhooks/endpoints', headers, payload: payload as object });

  it('creates an endpoint and answers its secret once, never in reads', async () => {
    ctx = await setup(TOKEN);
    const res = await create({
      url: 'https://hooks.example.com/racing',
      eventTypes: ['race.results'],
      filters: { country: 'AUS' },
      description: 'results',
    });
    expect(res.statusCode).toBe(201);
    const { endpoint, secret } = res.json();
    expect(secret).toMatch(/^whsec_/);
    expect(Buffer.from(secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
    expect(endpoint).toEqual({
      id: expect.stringMatching(/^ep_/),
      url: 'https://hooks.example.com/racing',
      kind: 'standard',
      description: 'results',
      eventTypes: ['race.results'],
      filters: { country: 'AUS' },
      enabled: true,
      disabledReason: null,
      failingSince: null,
      previousSecretExpiresAt: null,
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
    });
    const list = await ctx.app.inject({ method: 'GET', url: '/v1/webhooks/endpoints', headers: auth });
    expect(list.json()).toEqual({ endpoints: [endpoint] });
    expect(list.body).not.toContain(secret.slice(6));
    const one = await ctx.app.inject({
      method: 'GET',
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      headers: auth,
    });
    expect(one.json()).toEqual(endpoint);
  });

  it('gives chat endpoints the alert event types by default', async () => {
    ctx = await setup(TOKEN);
    const res = await create({ url: 'https://hooks.slack.com/services/T/B/x', kind: 'slack' });
    expect(res.json().endpoint.eventTypes).toEqual([
      'runner.scratched',
      'race.results',
      'race.dividends',
      'race.abandoned',
      'odds.changed',
      'odds.pools_changed',
      'odds.plunge',
      'market.big_bet',
    ]);
  });

  it('rejects bad bodies with a clear error code and message', async () => {
    ctx = await setup(TOKEN);
    const cases: [unknown, string][] = [
      [{}, 'url: Invalid input: expected string, received undefined'],
      [
        { url: 'https://hooks.example.com/', kind: 'teams' },
        'kind: Invalid option: expected one of "standard"|"slack"|"discord"',
      ],
      [
        { url: 'https://hooks.example.com/', eventTypes: [] },
        'eventTypes: Too small: expected array to have >=1 items',
      ],
      [
        { url: 'https://hooks.example.com/', eventTypes: ['Race Results'] },
        'eventTypes.0: an event type like runner.scratched, a family like market.*, or *',
      ],
      [{ url: 'https://hooks.example.com/', secret: 'mine' }, 'Unrecognized key: "secret"'],
      [
        { url: 'https://hooks.example.com/', filters: { category: 'X' } },
        'filters.category: Invalid option: expected one of "T"|"H"|"G"',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await create(body);
      expect([res.statusCode, res.json()]).toEqual([
        400,
        { error: { code: 'RW_WEBHOOK_INVALID_REQUEST', message } },
      ]);
    }
    const badJson = await ctx.app.inject({
      method: 'POST',
      url: '/v1/webhooks/endpoints',
      headers: { ...auth, 'content-type': 'application/json' },
      payload: '{nope',
    });
    expect(badJson.statusCode).toBe(400);
    expect(badJson.json().error.code).toBe('RW_WEBHOOK_INVALID_REQUEST');
  });

  it('refuses URLs on loopback, private and IPv4-mapped addresses', async () => {
    ctx = await setup(TOKEN);
    for (const url of ['http://127.0.0.1/x', 'http://192.168.0.10/x', 'http://[::ffff:10.0.0.1]/x']) {
      const res = await create({ url });
      expect([res.statusCode, res.json().error.code]).toEqual([400, 'RW_WEBHOOK_URL_FORBIDDEN']);
    }
    expect((await create({ url: 'file:///etc/passwd' })).json().error.code).toBe('RW_WEBHOOK_INVALID_URL');
  });

  it('requires the bearer token when one is configured', async () => {
    ctx = await setup(TOKEN);
    for (const headers of [
      {},
      { authorization: 'Bearer wrong-token-0123456789' },
      { authorization: TOKEN },
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/v1/webhooks/endpoints', headers });
      expect([res.statusCode, res.json()]).toEqual([
        401,
        { error: { code: 'RW_WEBHOOK_UNAUTHORIZED', message: 'a valid admin bearer token is required' } },
      ]);
    }
  });

  it('answers only loopback callers when no token is configured', async () => {
    ctx = await setup(undefined);
    const remote = await ctx.app.inject({
      method: 'GET',
      url: '/v1/webhooks/endpoints',
      remoteAddress: '203.0.113.9',
    });
    expect([remote.statusCode, remote.json().error.code]).toEqual([403, 'RW_WEBHOOK_FORBIDDEN']);
    const local = await ctx.app.inject({
      method: 'GET',
      url: '/v1/webhooks/endpoints',
      remoteAddress: '127.0.0.1',
    });
    expect(local.statusCode).toBe(200);
  });

  it('updates, disables and deletes an endpoint, and answers 404 for unknown ids', async () => {
    ctx = await setup(TOKEN);
    const { endpoint } = (await create({ url: 'https://hooks.example.com/a' })).json();
    const patched = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      headers: auth,
      payload: { enabled: false, eventTypes: ['runner.scratched'], filters: { raceId: 'r1' } },
    });
    expect(patched.json()).toMatchObject({
      enabled: false,
      eventTypes: ['runner.scratched'],
      filters: { raceId: 'r1' },
    });
    const empty = await ctx.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      headers: auth,
      payload: {},
    });
    expect(empty.json()).toEqual({
      error: { code: 'RW_WEBHOOK_INVALID_REQUEST', message: 'the body must change at least one field' },
    });
    const del = await ctx.app.inject({
      method: 'DELETE',
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      headers: auth,
    });
    expect(del.statusCode).toBe(204);
    const gone = await ctx.app.inject({
      method: 'GET',
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      headers: auth,
    });
    expect([gone.statusCode, gone.json().error.code]).toEqual([404, 'RW_WEBHOOK_ENDPOINT_NOT_FOUND']);
    const noDelivery = await ctx.app.inject({
      method: 'GET',
      url: '/v1/webhooks/deliveries/999',
      headers: auth,
    });
    expect([noDelivery.statusCode, noDelivery.json().error.code]).toEqual([
      404,
      'RW_WEBHOOK_DELIVERY_NOT_FOUND',
    ]);
  });

  it('enqueues only for enabled endpoints whose types and filters match', async () => {
    ctx = await setup(TOKEN);
    await create({ url: 'https://hooks.example.com/all' });
    await create({ url: 'https://hooks.example.com/r2', filters: { raceId: 'race-2' } });
    await create({
      url: 'https://hooks.example.com/aus',
      eventTypes: ['race.results'],
      filters: { country: 'AUS' },
    });
    await create({ url: 'https://hooks.example.com/off', enabled: false });
    const fed = await ctx.feed([
      eventEntry('race.results', { country: 'AUS' }, { raceId: 'race-1' }),
      eventEntry('race.results', { race: { country: 'NZ' } }, { raceId: 'race-2' }),
      eventEntry('runner.scratched', {}, { raceId: 'race-3' }),
    ]);
    // all: 3; r2: 1; aus: 1.
    expect(fed).toEqual({ read: 3, enqueued: 5 });
  });

  it('sends a test event, lists deliveries, and replays one and a time range with the same event id', async () => {
    ctx = await setup(TOKEN);
    const { endpoint } = (await create({ url: 'https://hooks.example.com/a' })).json();
    const test = await ctx.app.inject({
      method: 'POST',
      url: `/v1/webhooks/endpoints/${endpoint.id}/test`,
      headers: auth,
    });
    expect(test.statusCode).toBe(202);
    expect(test.json().delivery).toMatchObject({
      eventType: 'webhook.test',
      status: 'pending',
      endpointId: endpoint.id,
    });
    const original = test.json().delivery;
    expect(original.eventId).toMatch(/^test:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const replay = await ctx.app.inject({
      method: 'POST',
      url: `/v1/webhooks/deliveries/${original.id}/replay`,
      headers: auth,
    });
    expect(replay.json().delivery).toMatchObject({ eventId: original.eventId, replayOf: original.id });
    const range = await ctx.app.inject({
      method: 'POST',
      url: `/v1/webhooks/endpoints/${endpoint.id}/replay`,
      headers: auth,
      payload: { from: '2026-11-22T09:00:00Z', to: '2026-11-22T11:00:00Z' },
    });
    expect(range.json()).toEqual({ replayed: 1 });
    const list = await ctx.app.inject({
      method: 'GET',
      url: `/v1/webhooks/endpoints/${endpoint.id}/deliveries?limit=10`,
      headers: auth,
    });
    const deliveries = list.json().deliveries as { eventId: string; replayOf: number | null }[];
    expect(deliveries.map((d) => [d.eventId, d.replayOf])).toEqual([
      [original.eventId, original.id],
      [original.eventId, original.id],
      [original.eventId, null],
    ]);
    const badRange = await ctx.app.inject({
      method: 'POST',
      url: `/v1/webhooks/endpoints/${endpoint.id}/replay`,
      headers: auth,
      payload: { from: '2026-11-22T11:00:00Z', to: '2026-11-22T09:00:00Z' },
    });
    expect(badRange.json()).toEqual({
      error: { code: 'RW_WEBHOOK_INVALID_REQUEST', message: 'from must not be after to' },
    });
    const badQuery = await ctx.app.inject({
      method: 'GET',
      url: `/v1/webhooks/endpoints/${endpoint.id}/deliveries?limit=0`,
      headers: auth,
    });
    expect(badQuery.statusCode).toBe(400);
  });

  it('documents every route in the OpenAPI document', async () => {
    ctx = await setup(TOKEN, true);
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(
      Object.keys(doc.paths)
        .filter((p) => p.startsWith('/v1/webhooks'))
        .sort(),
    ).toEqual([
      '/v1/webhooks/deliveries/{deliveryId}',
      '/v1/webhooks/deliveries/{deliveryId}/replay',
      '/v1/webhooks/endpoints',
      '/v1/webhooks/endpoints/{id}',
      '/v1/webhooks/endpoints/{id}/deliveries',
      '/v1/webhooks/endpoints/{id}/replay',
      '/v1/webhooks/endpoints/{id}/rotate-secret',
      '/v1/webhooks/endpoints/{id}/test',
      '/v1/webhooks/endpoints:export',
    ]);
    expect(
      doc.paths['/v1/webhooks/endpoints'].post.requestBody.content['application/json'].schema.required,
    ).toEqual(['url']);
  });
});
