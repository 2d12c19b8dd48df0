import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createLease } from '../../src/cluster/lease.js';
import { createRedisEventLog } from '../../src/store/redis/redis-event-log.js';
import { event, eventLogContract, eventLogModelContract, snapshot } from './event-log.contract.js';

const url = process.env.REDIS_URL;
const now = new Date('2026-11-22T10:00:00.000Z');

if (!url) {
  it.skip('Redis event log: skipped because REDIS_URL is unset', () => {});
} else {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: false });
  const runPrefix = `racewire-test:${randomUUID()}:`;
  let logs = 0;
  const nextPrefix = () => `${runPrefix}${++logs}:`;

  afterAll(async () => {
    const stale = await redis.keys(`${runPrefix}*`);
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
  });

  const factory = async ({ window }: { window?: number }) => {
    const prefix = nextPrefix();
    const log = createRedisEventLog({ redis, prefix, window });
    return {
      log,
      reopen: async () => {
        await log.close();
        return createRedisEventLog({ redis, prefix, window });
      },
    };
  };
  eventLogContract('redis', factory);
  eventLogModelContract('redis', factory, 25);

  describe('redis event log', () => {
    it('gives two nodes on one prefix the same epoch and one numbering', async () => {
      const prefix = nextPrefix();
      const a = createRedisEventLog({ redis, prefix, newEpoch: () => 'epoch-a' });
      const b = createRedisEventLog({ redis, prefix, newEpoch: () => 'epoch-b' });
      expect((await b.head('r1')).epoch).toBe('epoch-b');
      expect((await a.head('r1')).epoch).toBe('epoch-b');
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).append('r1', { entries: [event('e')], now })),
      );
      expect(results.map((r) => r[0]!.seq).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
      const read = await a.read('r1', 0);
      expect(read.ok && read.entries.map((e) => e.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });

    it('adds exactly the appended events to the feed, in order, in the same step', async () => {
      const prefix = nextPrefix();
      const log = createRedisEventLog({ redis, prefix });
      await log.append('r1', {
        entries: [snapshot({ a: 1 }), event('e1'), event('e2')],
        document: { a: 1 },
        now,
      });
      await log.append('r2', { entries: [event('e3')], now });
      const feed = (await redis.xrange(`${prefix}feed`, '-', '+')).map(([, f]) => JSON.parse(f[1]!));
      const { epoch } = await log.head('r1');
      expect(feed.map((e) => [e.kind, e.stream, e.seq, e.event.id])).toEqual([
        ['event', 'r1', 2, `r1:2@${epoch}`],
        ['event', 'r1', 3, `r1:3@${epoch}`],
        ['event', 'r2', 1, `r2:1@${epoch}`],
      ]);
      const fenced = createRedisEventLog({ redis, prefix, fence: () => undefined });
      await expect(fenced.append('r1', { entries: [event('e4')], now })).rejects.toMatchObject({
        code: 'fenced',
      });
      expect(await redis.xlen(`${prefix}feed`)).toBe(3);
    });

    it('rejects an append from a node without a lease with code fenced and appends nothing', async () => {
      const log = createRedisEventLog({ redis, prefix: nextPrefix(), fence: () => undefined });
      await expect(log.append('r1', { entries: [event('e')], now })).rejects.toMatchObject({
        code: 'fenced',
      });
      expect((await log.head('r1')).seq).toBe(0);
    });

    it("rejects a stale holder's token once a newer one wrote, and keeps the newer holder's entries", async () => {
      const prefix = nextPrefix();
      let stale = 1;
      const old = createRedisEventLog({ redis, prefix, fence: () => stale });
      const fresh = createRedisEventLog({ redis, prefix, fence: () => 2 });
      await old.append('r1', { entries: [snapshot({ v: 1 })], document: { v: 1 }, now });
      await fresh.append('r1', { entries: [event('e')], now });
      await expect(old.append('r1', { entries: [event('late')], now })).rejects.toMatchObject({
        code: 'fenced',
      });
      stale = 3;
      expect(await old.append('r1', { entries: [event('again')], now })).toHaveLength(1);
      expect((await old.head('r1')).seq).toBe(3);
    });

    it("rejects a lease holder's writes as soon as another node acquired the lease", async () => {
      const prefix = nextPrefix();
      const key = `${prefix}lease`;
      const a = createLease({ redis, key, nodeId: 'a', ttlMs: 5_000, clock: systemClock });
      const b = createLease({ redis, key, nodeId: 'b', ttlMs: 5_000, clock: systemClock });
      const logA = createRedisEventLog({ redis, prefix, fence: () => a.token(), fenceKey: a.tokenKey });
      const logB = createRedisEventLog({ redis, prefix, fence: () => b.token(), fenceKey: b.tokenKey });
      expect(await a.acquire()).toBe(true);
      await logA.append('r1', { entries: [event('a1')], now });
      await expect(logB.append('r1', { entries: [event('b0')], now })).rejects.toMatchObject({
        code: 'fenced',
      });
      // a's lease is taken from it (as if it expired while a was paused); a still believes it leads.
      await redis.del(key);
      expect(await b.acquire()).toBe(true);
      expect(a.token()).toBeDefined();
      await expect(logA.append('r1', { entries: [event('a2')], now })).rejects.toMatchObject({
        code: 'fenced',
      });
      await logB.append('r1', { entries: [event('b1')], now });
      const read = await logB.read('r1', 0);
      expect(read.ok && read.entries.map((e) => e.kind === 'event' && e.event.type)).toEqual(['a1', 'b1']);
    });

    it('starts a new epoch from seq 1 when Redis was flushed under a running node', async () => {
      const prefix = nextPrefix();
      let n = 0;
      const log = createRedisEventLog({ redis, prefix, newEpoch: () => `epoch-${++n}` });
      await log.append('r1', { entries: [event('a'), event('b')], now });
      await redis.del(...(await redis.keys(`${prefix}*`)));
      const [stored] = await log.append('r1', { entries: [event('c')], now });
      expect(stored?.seq).toBe(1);
      expect((await log.head('r1')).epoch).toBe('epoch-2');
    });

    it('stamps entries with the epoch, and a node that never appended sees the new one after a flush', async () => {
      const prefix = nextPrefix();
      let n = 0;
      const leader = createRedisEventLog({ redis, prefix, newEpoch: () => `epoch-${++n}` });
      const follower = createRedisEventLog({ redis, prefix, newEpoch: () => `epoch-${++n}` });
      const [first] = await leader.append('r1', { entries: [event('a'), event('b')], now });
      expect(first?.epoch).toBe('epoch-1');
      expect((await follower.head('r2')).epoch).toBe('epoch-1');
      await redis.del(...(await redis.keys(`${prefix}*`)));
      // The follower looks first: it makes the new epoch, and the leader's next append numbers in it.
      expect((await follower.head('r2')).epoch).toBe('epoch-2');
      const [stored] = await leader.append('r1', { entries: [event('c')], now });
      expect(stored).toMatchObject({ seq: 1, epoch: 'epoch-2' });
      const read = await follower.read('r1', 0, { epoch: 'epoch-2' });
      expect(read.ok && read.entries.map((e) => [e.seq, e.epoch])).toEqual([[1, 'epoch-2']]);
      expect(await follower.read('r1', 2, { epoch: 'epoch-1' })).toMatchObject({
        ok: false,
        reason: 'epoch_mismatch',
      });
    });

    it('answers a Redis that cannot be reached with code redis_unavailable, in the log and the lease', async () => {
      const dead = new Redis('redis://127.0.0.1:1', {
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
        lazyConnect: true,
        retryStrategy: () => null,
      });
      const log = createRedisEventLog({ redis: dead, prefix: nextPrefix() });
      await expect(log.head('r1')).rejects.toMatchObject({ code: 'redis_unavailable' });
      await expect(log.read('r1', 0)).rejects.toMatchObject({ code: 'redis_unavailable' });
      const lease = createLease({ redis: dead, key: 'k', nodeId: 'a', ttlMs: 1_000, clock: systemClock });
      await expect(lease.acquire()).rejects.toMatchObject({ code: 'redis_unavailable' });
      await expect(log.append('r1', { entries: [event('e')], now })).rejects.toMatchObject({
        code: 'redis_unavailable',
      });
      dead.disconnect();
    });
  });
}
