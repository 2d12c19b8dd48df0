import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisBus, type RedisBus } from '../../src/bus/redis-bus.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { busContract, busEntry } from './bus.contract.js';

const url = process.env.REDIS_URL;

/** Collects batches and lets a test await the n-th one. */
function collector() {
  const batches: LogEntry[][] = [];
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  return {
    batches,
    listener: (entries: LogEntry[]) => {
      batches.push(entries);
      for (const w of waiters.filter((w) => batches.length >= w.n)) w.resolve();
    },
    until: (n: number) =>
      batches.length >= n ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ n, resolve })),
  };
}

if (!url) {
  it.skip('Redis bus: skipped because REDIS_URL is unset', () => {});
} else {
  busContract('redis', async () => {
    const errors: unknown[] = [];
    const pub = new Redis(url, { maxRetriesPerRequest: 1 });
    const sub = new Redis(url, { maxRetriesPerRequest: 1 });
    const bus = createRedisBus({
      pub,
      sub,
      channel: `racewire-test:${randomUUID()}:entries`,
      nodeId: 'contract',
      onError: (e) => errors.push(e),
    });
    await bus.ready;
    return {
      bus,
      errors,
      async close() {
        await bus.close();
        await Promise.all([pub.quit(), sub.quit()]);
      },
    };
  });

  describe('redis bus', () => {
    const clients: Redis[] = [];
    const client = () => {
      const c = new Redis(url, { maxRetriesPerRequest: 1 });
      clients.push(c);
      return c;
    };
    const channel = `racewire-test:${randomUUID()}:entries`;
    const errors: Array<[node: string, err: unknown]> = [];
    let pub: Redis;
    let a: RedisBus;
    let b: RedisBus;

    beforeAll(async () => {
      pub = client();
      a = createRedisBus({
        pub,
        sub: client(),
        channel,
        nodeId: 'node-a',
        onError: (e) => errors.push(['a', e]),
      });
      b = createRedisBus({
        pub,
        sub: client(),
        channel,
        nodeId: 'node-b',
        onError: (e) => errors.push(['b', e]),
      });
      await Promise.all([a.ready, b.ready]);
    });
    afterAll(async () => {
      await a.close();
      await b.close();
      for (const c of clients) await c.quit();
    });

    it('delivers a batch to local listeners synchronously, to the other node once, and not back to itself', async () => {
      const onA = collector();
      const onB = collector();
      const offA = a.subscribe(onA.listener);
      const offB = b.subscribe(onB.listener);
      a.publish([busEntry('r1', 1), busEntry('r1', 2)]);
      expect(onA.batches).toEqual([[busEntry('r1', 1), busEntry('r1', 2)]]);
      await onB.until(1);
      expect(onB.batches).toEqual([[busEntry('r1', 1), busEntry('r1', 2)]]);
      // b's batch goes through the same publishing connection after a's, so once a has it, any echo of
      // a's own batch would have arrived before it.
      b.publish([busEntry('r2', 1)]);
      await onA.until(2);
      expect(onA.batches).toEqual([[busEntry('r1', 1), busEntry('r1', 2)], [busEntry('r2', 1)]]);
      expect(onB.batches).toEqual([[busEntry('r1', 1), busEntry('r1', 2)], [busEntry('r2', 1)]]);
      offA();
      offB();
    });

    it('reports a malformed message from Redis and delivers nothing for it', async () => {
      const onB = collector();
      const off = b.subscribe(onB.listener);
      errors.length = 0;
      await pub.publish(channel, '{"node":"x","entries":[{"kind":"nope"}]}');
      await pub.publish(channel, 'not json');
      a.publish([busEntry('r3', 1)]);
      await onB.until(1);
      expect(onB.batches).toEqual([[busEntry('r3', 1)]]);
      expect(errors.filter(([node]) => node === 'b').map(([, e]) => (e as { code?: string }).code)).toEqual([
        'bad_bus_message',
        'bad_bus_message',
      ]);
      off();
    });

    it('keeps delivering to other listeners when one throws, and reports the error', async () => {
      errors.length = 0;
      const boom = new Error('listener failed');
      const offThrow = b.subscribe(() => {
        throw boom;
      });
      const onB = collector();
      const off = b.subscribe(onB.listener);
      a.publish([busEntry('r4', 1)]);
      await onB.until(1);
      expect(onB.batches).toEqual([[busEntry('r4', 1)]]);
      expect(errors.filter(([node]) => node === 'b')).toEqual([['b', boom]]);
      offThrow();
      off();
    });

    it('still delivers locally and reports the error when publishing to Redis fails', async () => {
      const dead = new Redis('redis://127.0.0.1:1', {
        lazyConnect: true,
        enableOfflineQueue: false,
        retryStrategy: () => null,
      });
      const failures: unknown[] = [];
      const lonely = createRedisBus({
        pub: dead,
        sub: client(),
        channel,
        nodeId: 'node-c',
        onError: (e) => failures.push(e),
      });
      await lonely.ready;
      const local = collector();
      lonely.subscribe(local.listener);
      lonely.publish([busEntry('r5', 1)]);
      expect(local.batches).toEqual([[busEntry('r5', 1)]]);
      while (failures.length === 0) await new Promise((r) => setImmediate(r));
      expect(failures).toHaveLength(1);
      await lonely.close();
      dead.disconnect();
    });
  });
}
