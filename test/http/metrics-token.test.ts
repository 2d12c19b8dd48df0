import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createAuthFailures } from '../../src/http/auth-failures.js';
import { createMetrics, registerMetricsRoute } from '../../src/http/metrics.js';

const TOKEN = 'scrape-0123456789abcdef';

async function app(guarded: boolean) {
  const server = Fastify();
  const wall = createManualClock(Date.parse('2026-11-26T10:00:00Z'));
  const authFailures = createAuthFailures({ maxFailures: 3, windowMs: 60_000 }, wall);
  registerMetricsRoute(server, createMetrics(), guarded ? { token: TOKEN, authFailures } : undefined);
  await server.ready();
  const scrape = (authorization?: string) =>
    server.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
  return { server, wall, scrape };
}

describe('GET /metrics with METRICS_TOKEN', () => {
  it('is open when no token is set', async () => {
    const { scrape } = await app(false);
    expect((await scrape()).statusCode).toBe(200);
  });

  it('answers a scraper with the bearer token and refuses one without it', async () => {
    const { scrape } = await app(true);
    const ok = await scrape(`Bearer ${TOKEN}`);
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('process_cpu_user_seconds_total');
    const refused = await scrape();
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe('Bearer');
    expect(refused.json()).toEqual({
      error: { code: 'unauthorized', message: 'GET /metrics needs the METRICS_TOKEN bearer token' },
    });
  });

  it('counts wrong tokens per address: 429 past the limit, even with the right one, until the window ends', async () => {
    const { scrape, wall } = await app(true);
    for (const guess of ['Bearer a', 'Bearer b', 'Bearer c'])
      expect((await scrape(guess)).statusCode).toBe(401);
    const limited = await scrape(`Bearer ${TOKEN}`);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    await wall.advance(60_000);
    expect((await scrape(`Bearer ${TOKEN}`)).statusCode).toBe(200);
  });
});
