/**
 * Retention of the Redis log reads the retained index, not every stream ever written: what enters and leaves
 * the index, a pass larger than a batch, an append racing the unindex, and a log written before the index.
 * (What retention does to a stream is the contract's, test/store/event-log.contract.ts.)
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { expireScript, unindexScript } from '../../src/store/redis/append-script.js';
import { createRedisEventLog } from '../../src/store/redis/redis-event-log.js';
import { RETENTION_BATCH } from '../../src/store/redis/redis-retention.js';
import { event, snapshot } from './entry-builders.js';

const url = process.env.REDIS_URL;
const at = (iso: string) => new Date(`2026-11-${iso}Z`);
/** Settled before the 21st, forgotten before the 15th. */
const policy = { settledBefore: at('21T00:00:00'), forgetBefore: at('15T00:00:00') };

if (!url) {
  it.skip('Redis retention: skipped because REDIS_URL is unset', () => {});
} else {
  describe('Redis retention reads the retained index', () => {
    const redis = new Redis(url, { maxRetriesPerRequest: 1 });
    const runPrefix = `racewire-test:${randomUUID()}:`;
    let logs = 0;
    afterAll(async () => {
      const stale = await redis.keys(`${runPrefix}*`);
      for (let i = 0; i < stale.length; i += 1_000) await redis.del(...stale.slice(i, i + 1_000));
      await redis.quit();
    });

    /** A log on its own prefix, on a client that counts the expire scripts it runs. */
    const fresh = () => {
      const prefix = `${runPrefix}${++logs}:`;
      const counted = { expires: 0 };
      const proxy = new Proxy(redis, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (prop === 'evalsha')
            return (sha: string, ...rest: Array<string | number | Buffer>) => {
              if (sha === expireScript.sha) counted.expires++;
              return (value as (...args: unknown[]) => unknown).call(target, sha, ...rest);
            };
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      const log = createRedisEventLog({ redis: proxy, prefix });
      const indexed = async () => (await redis.zrange(`${prefix}retained`, 0, -1)).sort();
      return { log, prefix, counted, indexed };
    };
    const write = (log: ReturnType<typeof fresh>['log'], stream: string, day: string) =>
      log.append(stream, {
        entries: [snapshot({ v: 1 }), event('a')],
        document: { v: 1 },
        now: at(`${day}T10:00:00`),
      });

    it('keeps a stream indexed while it holds entries or a document, and runs no script for one forgotten', async () => {
      const { log, counted, indexed } = fresh();
      await write(log, 'r-old', '10');
      await write(log, 'r-mid', '20');
      await write(log, 'r-new', '22');
      expect(await indexed()).toEqual(['r-mid', 'r-new', 'r-old']);

      expect(await log.expire(policy)).toEqual({ settled: 1, forgotten: 1 });
      // r-mid is settled but keeps its document until the forget cutoff passes it.
      expect(await indexed()).toEqual(['r-mid', 'r-new']);
      expect(counted.expires).toBe(2);

      counted.expires = 0;
      expect(await log.expire(policy)).toEqual({ settled: 0, forgotten: 0 });
      expect(counted.expires).toBe(1);

      // Written again, a forgotten stream is indexed again and expires as before.
      await write(log, 'r-old', '23');
      expect(await indexed()).toEqual(['r-mid', 'r-new', 'r-old']);
      expect((await log.head('r-old')).seq).toBe(4);
    });

    it(`expires a pass of more than ${RETENTION_BATCH} streams in batches, and empties the index`, async () => {
      const { log, counted, indexed } = fresh();
      const n = 2 * RETENTION_BATCH + 1;
      for (let i = 0; i < n; i++) await write(log, `r${i}`, '10');
      expect(await log.expire(policy)).toEqual({ settled: 0, forgotten: n });
      expect(counted.expires).toBe(n);
      expect(await indexed()).toEqual([]);
      counted.expires = 0;
      expect(await log.expire(policy)).toEqual({ settled: 0, forgotten: 0 });
      expect(counted.expires).toBe(0);
    });

    it('leaves a stream indexed when an append moved its score after retention read it', async () => {
      const { log, prefix, indexed } = fresh();
      await write(log, 'r1', '10');
      const [, read] = await redis.zrange(`${prefix}retained`, 0, -1, 'WITHSCORES');
      await write(log, 'r1', '23');
      expect(await unindexScript.run(redis, [`${prefix}retained`], ['r1', read!])).toBe(0);
      expect(await indexed()).toEqual(['r1']);
      const [, now] = await redis.zrange(`${prefix}retained`, 0, -1, 'WITHSCORES');
      expect(await unindexScript.run(redis, [`${prefix}retained`], ['r1', now!])).toBe(1);
      expect(await indexed()).toEqual([]);
    });

    it('indexes once the streams of a log written before the index existed, and expires them', async () => {
      const { log, prefix, indexed } = fresh();
      await write(log, 'r-old', '10');
      await write(log, 'r-mid', '20');
      await write(log, 'r-new', '22');
      // As the log was before this release: the same streams and heads, no index and no ready mark.
      await redis.del(`${prefix}retained`, `${prefix}retained:ready`);

      expect(await log.expire(policy)).toEqual({ settled: 1, forgotten: 1 });
      expect(await redis.get(`${prefix}retained:ready`)).toBe('1');
      expect(await indexed()).toEqual(['r-mid', 'r-new']);
      expect((await log.head('r-old')).documentSeq).toBe(0);
      expect((await log.head('r-mid')).document).toEqual({ v: 1 });
    });
  });
}
