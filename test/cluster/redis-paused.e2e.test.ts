/**
 * Redis paused (SIGSTOP on a redis-server of the test's own: every command waits for its 2 s timeout, as in
 * an outage) under one node that polls nothing (its upstream refuses connections, so no polling work shares
 * the event loop on a busy machine): `/metrics`, `/v1/ops` and `/readyz` still answer within 500 ms, the metrics
 * with the Redis-backed figures marked stale (`racewire_redis_up 0`), `/readyz` with `redis` failing.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { type Racewire, startRacewire } from '../../src/runtime.js';
import { until } from '../e2e/harness.js';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import { clusterEnv, freePort } from './cluster-harness.js';
import { type OwnRedis, startOwnRedis } from './nemesis/redis-server.js';

describeWithRedis('operations answer while Redis is paused', () => {
  let redis: OwnRedis;
  let redisPid: number;
  let node: Racewire;

  beforeAll(async () => {
    requireRedisServer();
    redis = await startOwnRedis(await freePort());
    const probe = new Redis(redis.url);
    redisPid = Number(/process_id:(\d+)/.exec(await probe.info('server'))?.[1]);
    probe.disconnect();
    const env = {
      // An upstream that refuses every connection: this node only answers, so the measure is of the answer.
      ...clusterEnv({ prefix: 'racewire:', upstream: `http://127.0.0.1:${await freePort()}`, budget: 60 }),
      REDIS_URL: redis.url,
      PORT: '0',
      LOG_LEVEL: 'silent',
      NODE_ID: 'a',
    };
    node = await startRacewire({ config: loadConfig(env) });
    await until(() => node.backend.leadership.isLeader() || undefined, 'a leader', 15_000);
  }, 120_000);

  afterAll(async () => {
    if (redisPid) process.kill(redisPid, 'SIGCONT');
    await node?.stop();
    await redis?.close();
  }, 60_000);

  const timed = async (url: string) => {
    const started = performance.now();
    const res = await node.app.inject({ method: 'GET', url });
    return { res, ms: performance.now() - started };
  };

  it('serves /metrics, /v1/ops and /readyz within 500 ms, saying Redis is down', async () => {
    // Redis is up once the cluster sync has answered (it starts with the node, on its own loop): wait for that
    // rather than assume it from leadership, which a busy machine reaches first (a suite beside .ci/run).
    await until(
      async () => {
        const scrape = await timed('/metrics');
        return scrape.res.body.includes('racewire_redis_up{node="a"} 1') || undefined;
      },
      'racewire_redis_up 1 before the pause',
      15_000,
    );

    process.kill(redisPid, 'SIGSTOP');
    const metrics = await timed('/metrics');
    expect(metrics.res.statusCode).toBe(200);
    expect(metrics.ms).toBeLessThan(500);
    expect(metrics.res.body).toContain('racewire_redis_up{node="a"} 0');
    expect(metrics.res.body).toMatch(/racewire_webhook_outbox_depth\{node="a"\} \d+/);

    const ops = await timed('/v1/ops');
    expect(ops.res.statusCode).toBe(200);
    expect(ops.ms).toBeLessThan(500);
    expect(ops.res.json()).toMatchObject({ webhooks: { stale: true }, cluster: { redisUp: false } });

    // Readiness runs in the background: redis fails within one run and its deadline, each answer at once.
    // (503 throughout: this node's upstream is never reachable.)
    const answers: number[] = [];
    const redisCheck = await until(
      async () => {
        const r = await timed('/readyz');
        answers.push(r.ms);
        expect(r.res.statusCode).toBe(503);
        const check = r.res.json().checks.redis;
        return check.ok ? undefined : check;
      },
      'readiness saying Redis fails',
      5_000,
    );
    expect(redisCheck).toEqual({ ok: false, detail: 'no answer within 400 ms' });
    expect(Math.max(...answers)).toBeLessThan(500);

    // Two scrapes later in the outage: still 200 at once (one read in flight, not one per scrape).
    for (let i = 0; i < 2; i++) {
      const again = await timed('/metrics');
      expect([again.res.statusCode, again.ms < 500]).toEqual([200, true]);
    }
    process.kill(redisPid, 'SIGCONT');
    await until(
      async () =>
        (await timed('/metrics')).res.body.includes('racewire_redis_up{node="a"} 1') ? true : undefined,
      'racewire_redis_up 1 again',
      15_000,
    );
  }, 60_000);
});
