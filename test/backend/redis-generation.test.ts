/**
 * The generation key (issue 27): two nodes adopt the generation they find; a wiped key (DEL, as FLUSHALL
 * or a restart without persistence leaves it) or another generation is a loss each node reports until a
 * restore marks the current generation restored. On the shared Redis under a prefix of the test's own.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { watchGeneration } from '../../src/backend/redis-generation.js';
import { createManualClock } from '../../src/clock.js';
import { redisPrefix } from '../cluster/cluster-harness.js';
import { captureLogs } from '../support/log-capture.js';
import { describeWithRedis } from '../support/redis.js';

describeWithRedis('the Redis generation key', (url) => {
  const keys = redisPrefix('generation');
  const key = `${keys.prefix}generation`;
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(url, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    redis.disconnect();
    await keys.clean();
  });

  it('reports a wipe or a replacement on every node until a restore, counting each loss once', async () => {
    const wall = createManualClock(Date.parse('2026-11-26T10:00:00Z'));
    let n = 0;
    const mint = () => `g${++n}`;
    const logs = captureLogs();
    const a = watchGeneration({ redis, key, wall, logger: logs.logger, mint });
    const b = watchGeneration({ redis, key, wall, logger: captureLogs().logger, mint });

    expect(await a.check()).toEqual({ id: 'g1', lost: null, losses: 0 });
    expect(await b.check()).toEqual({ id: 'g1', lost: null, losses: 0 });
    // The first node on an empty Redis cannot tell a new deployment from a wipe: it says so.
    expect(logs.lines.map((l) => [l.level, l.generation])).toEqual([[40, 'g1']]);

    await redis.del(key);
    await wall.advance(1_000);
    const since = wall.now();
    // a finds the key gone and makes the next generation; b then finds another one.
    expect(await a.check()).toEqual({
      id: 'g1',
      lost: { code: 'RW_REDIS_DATA_LOST', reason: 'wiped', since },
      losses: 1,
    });
    expect(await b.check()).toEqual({
      id: 'g1',
      lost: { code: 'RW_REDIS_DATA_LOST', reason: 'replaced', since },
      losses: 1,
    });
    await wall.advance(1_000);
    // Still lost, still one loss: it latches until a restore.
    expect((await a.check()).losses).toBe(1);
    expect((await a.check()).lost?.since).toBe(since);

    await b.restored();
    expect(b.status()).toEqual({ id: 'g3', lost: null, losses: 1 });
    expect(await a.check()).toEqual({ id: 'g3', lost: null, losses: 1 });
    expect(await redis.hget(key, 'restored_at')).toBe(String(wall.now()));

    // A second wipe is a second loss.
    await redis.del(key);
    expect((await a.check()).losses).toBe(2);
    expect(logs.lines.filter((l) => l.code === 'RW_REDIS_DATA_LOST')).toHaveLength(2);
  });

  it('rejects, and changes nothing, while Redis does not answer', async () => {
    const away = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      lazyConnect: true,
    });
    away.on('error', () => {});
    const wall = createManualClock(0);
    const w = watchGeneration({ redis: away, key, wall, logger: captureLogs().logger });
    await expect(w.check()).rejects.toMatchObject({ code: 'redis_unavailable' });
    expect(w.status()).toEqual({ id: null, lost: null, losses: 0 });
    away.disconnect();
  });
});
