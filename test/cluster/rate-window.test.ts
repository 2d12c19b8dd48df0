import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createDurableRateWindow } from '../../src/upstream/durable-rate-window.js';
import { createMemoryRateWindow } from '../../src/upstream/memory-rate-window.js';
import { createRedisRateWindow } from '../../src/upstream/redis-rate-window.js';
import { describeWithRedis } from '../support/redis.js';
import { rateWindowContract } from './rate-window.contract.js';

rateWindowContract('memory', async (opts) => {
  const window = createMemoryRateWindow(opts);
  return () => window;
});

// A single node's window kept across restarts, starting from a checkpoint whose last window is long past.
rateWindowContract('durable (single node, kept across restarts)', async (opts) => {
  const window = await createDurableRateWindow({
    ...opts,
    checkpoint: { read: async () => [], write: async () => {} },
    logger: pino({ level: 'silent' }),
  });
  return () => window;
});

describeWithRedis('redis request window', (url) => {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const runPrefix = `racewire-test:${randomUUID()}:`;
  let n = 0;
  const nextKey = () => `${runPrefix}window-${++n}`;
  afterAll(async () => {
    const stale = await redis.keys(`${runPrefix}*`);
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
  });

  rateWindowContract('redis', async (opts) => {
    const key = nextKey();
    return () => createRedisRateWindow({ redis, key, ...opts });
  });

  describe('redis window defaults', () => {
    it('holds each start a margin past 60 s (2 s by default) before giving its slot again, and wants it sent within half of it', async () => {
      const clock = createManualClock(0);
      const window = createRedisRateWindow({ redis, key: nextKey(), maxPerMinute: 1, clock });
      expect(window.sendWithinMs).toBe(1_000);
      expect(await window.tryAcquire()).toEqual({ admitted: true });
      await clock.advance(60_000);
      expect(await window.tryAcquire()).toEqual({ admitted: false, retryInMs: 2_000 });
      await clock.advance(2_000);
      expect(await window.tryAcquire()).toEqual({ admitted: true });
    });
  });
});
