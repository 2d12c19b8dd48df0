import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { createLease } from '../../src/cluster/lease.js';
import { createMemoryLease, createMemoryLeaseState } from '../../src/cluster/memory-lease.js';
import { describeWithRedis } from '../support/redis.js';
import { leaseContract } from './lease.contract.js';

leaseContract('memory', async () => {
  const state = createMemoryLeaseState();
  return {
    node: (nodeId, ttlMs, clock) => createMemoryLease({ state, nodeId, ttlMs, clock }),
    takeAway: async () => {
      state.holder = undefined;
    },
  };
});

describeWithRedis('redis lease', (url) => {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const runPrefix = `racewire-test:${randomUUID()}:`;
  let n = 0;
  afterAll(async () => {
    const stale = await redis.keys(`${runPrefix}*`);
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
  });
  leaseContract('redis', async () => {
    const key = `${runPrefix}lease-${++n}`;
    return {
      node: (nodeId, ttlMs, clock) => createLease({ redis, key, nodeId, ttlMs, clock }),
      takeAway: async () => void (await redis.set(key, 'someone-else|99|0')),
    };
  });
});
