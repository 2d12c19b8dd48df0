/**
 * The REST API as docs/rest.md promises it, on the real composition root (embedded simulator, memory store):
 * compression, weak ETags and 304, revalidation, CORS, per-client rate limits on REST and admin routes, the
 * bearer schemes in OpenAPI, every error in `{error: {code, message}}`, and the recent events.
 */
import { brotliDecompressSync } from 'node:zlib';
import { RacewireClient, type WebSocketFactory } from '@racewire/client';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type E2eRacewire, pickOpenRace, startE2e, until } from '../e2e/harness.js';

describe('the REST API', () => {
  let e2e: E2eRacewire;
  const inject = (opts: InjectOptions) => e2e.racewire.app.inject(opts);

  beforeAll(async () => {
    e2e = await startE2e({ CORS_ORIGINS: 'https://board.example,https://ops.example' });
  }, 20_000);
  afterAll(() => e2e?.stop());

  it('compresses /v1/meetings and answers a revalidation with 304 and no body', async () => {
    await pickOpenRace(e2e); // the day is discovered: a full list
    // The list is live (the simulator runs at x10, discovery every 6 s of its clock): take a plain read, a
    // compressed one and a revalidation that all saw one version of it. A 200 to the revalidation is right
    // only when the list changed in between, so it must carry another ETag.
    const { plain, br, again, etag } = await until(async () => {
      const plain = await inject({ url: '/v1/meetings' });
      const etag = String(plain.headers.etag);
      const br = await inject({ url: '/v1/meetings', headers: { 'accept-encoding': 'br, gzip' } });
      const again = await inject({ url: '/v1/meetings', headers: { 'if-none-match': etag } });
      if (again.statusCode === 200) expect(again.headers.etag).not.toBe(etag);
      return br.headers.etag === etag && again.statusCode === 304 ? { plain, br, again, etag } : undefined;
    }, 'three reads of one version of the meetings list');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers['cache-control']).toBe('no-cache');
    expect(etag).toMatch(/^W\/"/);

    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).toString()).toBe(plain.body);

    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('allows the configured origins and no other', async () => {
    const allowed = await inject({ url: '/v1/ops', headers: { origin: 'https://ops.example' } });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://ops.example');
    const other = await inject({ url: '/v1/ops', headers: { origin: 'https://evil.example' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('documents the bearer schemes and which routes need them', async () => {
    const doc = (await inject({ url: '/openapi.json' })).json() as {
      components: { securitySchemes: Record<string, { type: string; scheme: string }> };
      paths: Record<string, Record<string, { security?: unknown }>>;
    };
    expect(doc.components.securitySchemes.adminToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v1/webhooks/endpoints']?.post?.security).toEqual([{ adminToken: [] }]);
    expect(doc.paths['/v1/sse']?.get?.security).toEqual([{}, { apiKey: [] }]);
    expect(doc.paths['/v1/meetings']?.get?.security).toBeUndefined();
  });

  it.each([
    ['/no/such/route', 404, 'not_found', 'no route GET /no/such/route'],
    [
      `/v1/races/${'r'.repeat(101)}`,
      414,
      'path_segment_too_long',
      'a path segment is longer than 100 characters',
    ],
    ['/v1/races/%E0%A4%A', 400, 'bad_request', 'the URL is not valid (bad escape)'],
    ['/v1/events/recent?limit=0', 400, 'bad_request', 'querystring/limit must be >= 1'],
    [
      '/v1/races/unknown-race',
      404,
      'race_not_found',
      'no document for race unknown-race (unknown, or not fetched yet)',
    ],
  ])('answers %s with %i %s in the documented shape', async (url, status, code, message) => {
    const res = await inject({ url });
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: { code, message } });
  });

  it('lists the recent events newest first, odds moves only when asked', async () => {
    const { raceId } = await pickOpenRace(e2e);
    // A subscriber makes racewire poll the race closely, as anyone watching it would.
    const client = new RacewireClient({
      url: `${e2e.url.replace('http', 'ws')}/ws`,
      WebSocket: WebSocket as unknown as WebSocketFactory,
    });
    client.subscribe(`race:${raceId}`);
    client.connect();
    try {
      await until(() => (client.stream(raceId)?.seq ?? 0) > 0 || undefined, 'the race document', 15_000);
      const runner = e2e.simulator.world.raceView(raceId).runners.find((r) => !r.scratched)!;
      e2e.simulator.world.scratch(raceId, runner.entrantId);
      type Events = { events: { id: string; type: string; raceId?: string; timestamp: string }[] };
      const recent = async (query: string) =>
        ((await inject({ url: `/v1/events/recent?${query}` })).json() as Events).events;
      const events = await until(async () => {
        const list = await recent('limit=100');
        return list.some((e) => e.type === 'runner.scratched' && e.raceId === raceId) ? list : undefined;
      }, 'the scratching among the recent events');
      expect(events.filter((e) => e.type === 'odds.changed' || e.type === 'odds.pools_changed')).toEqual([]);
      const times = events.map((e) => e.timestamp);
      expect(times).toEqual([...times].sort().reverse());
      // The fetched race's data age is in /v1/ops, not in /v1/meetings (whose ETag it would break).
      const ops = (await inject({ url: '/v1/ops' })).json() as {
        staleMs: Record<string, number>;
        plannedMs: Record<string, number>;
        upstream: string;
      };
      // Where the data comes from, so the board can badge simulated data.
      expect(ops.upstream).toBe('embedded simulator');
      expect(ops.staleMs[raceId]).toBeGreaterThanOrEqual(0);
      // What the scheduler intends for it: a watched race at least every 10 s of racewire's clock.
      expect(ops.plannedMs[raceId]).toBeGreaterThan(0);
      expect(ops.plannedMs[raceId]).toBeLessThanOrEqual(10_000);
      const meetings = (await inject({ url: '/v1/meetings' })).json() as { meetings: { races: object[] }[] };
      expect(meetings.meetings.flatMap((m) => m.races).filter((r) => 'staleMs' in r)).toEqual([]);
    } finally {
      client.close();
    }
  }, 30_000);
});

describe('rate limits', () => {
  let e2e: E2eRacewire;
  beforeAll(async () => {
    e2e = await startE2e({ RATE_LIMIT_REST: '3', RATE_LIMIT_ADMIN: '2' });
  }, 20_000);
  afterAll(() => e2e?.stop());

  it('limits REST reads per client address, and not health or metrics', async () => {
    const get = (url: string, remoteAddress: string) => e2e.racewire.app.inject({ url, remoteAddress });
    for (let i = 0; i < 3; i++) expect((await get('/v1/ops', '10.0.0.1')).statusCode).toBe(200);
    const limited = await get('/v1/meetings', '10.0.0.1');
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: { code: 'rate_limited' } });
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await get('/v1/ops', '10.0.0.2')).statusCode).toBe(200);
    for (let i = 0; i < 5; i++) expect((await get('/healthz', '10.0.0.1')).statusCode).toBe(200);
    expect((await get('/metrics', '10.0.0.1')).statusCode).toBe(200);
  });

  it('limits the admin API on its own budget, in its error shape', async () => {
    const list = () => e2e.racewire.app.inject({ url: '/v1/webhooks/endpoints' });
    expect((await list()).statusCode).toBe(200);
    expect((await list()).statusCode).toBe(200);
    const limited = await list();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toMatchObject({ error: { code: 'rate_limited' } });
  });
});
