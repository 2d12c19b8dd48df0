import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createClusterState } from '../../src/cluster/cluster-state.js';

const url = process.env.REDIS_URL;

describe.skipIf(!url)('cluster state on Redis', () => {
  const redis = new Redis(url ?? '', { maxRetriesPerRequest: 1 });
  const prefix = `racewire-test:${randomUUID()}:`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  it("sums every live node's subscribers, shares the leader's freshness, and forgets a silent node", async () => {
    const clock = createManualClock(1_000_000);
    const a = createClusterState({ redis, prefix, nodeId: 'a', clock, intervalMs: 1000 });
    const b = createClusterState({ redis, prefix, nodeId: 'b', clock, intervalMs: 1000 });
    await a.sync({
      subscribers: new Map([['R1', 2]]),
      freshness: {
        discoveredAt: 999_000,
        lastGoodAt: { R1: 998_000 },
        days: [{ date: '2025-07-17', refreshedAt: 997_000, raceIds: ['R1'], listedSettled: false }],
      },
    });
    await b.sync({
      subscribers: new Map([
        ['R1', 3],
        ['R2', 1],
      ]),
    });
    expect(b.subscriberTotals()).toEqual(
      new Map([
        ['R1', 5],
        ['R2', 1],
      ]),
    );
    expect(b.freshness()).toEqual({
      leader: 'a',
      discoveredAt: 999_000,
      lastGoodAt: { R1: 998_000 },
      // The days the leader listed, which a new term starts with (handed-over.ts).
      days: [{ date: '2025-07-17', refreshedAt: 997_000, raceIds: ['R1'], listedSettled: false }],
    });
    expect([...b.nodes()].sort()).toEqual(['a', 'b']);

    // a stops syncing: three intervals later its counts are gone from the totals.
    await clock.advance(3_001);
    await b.sync({ subscribers: new Map([['R2', 1]]) });
    expect(b.subscriberTotals()).toEqual(new Map([['R2', 1]]));
    expect(b.nodes()).toEqual(['b']);
  });

  it('ignores what another process wrote in a shape it does not know', async () => {
    const clock = createManualClock(2_000_000);
    const c = createClusterState({ redis, prefix: `${prefix}x:`, nodeId: 'c', clock });
    await redis.zadd(`${prefix}x:nodes`, clock.now(), 'rogue');
    await redis.set(`${prefix}x:node:rogue`, '{"R1":"many","R2":4}');
    await redis.set(`${prefix}x:freshness`, 'not json');
    await c.sync({ subscribers: new Map() });
    expect(c.subscriberTotals()).toEqual(new Map([['R2', 4]]));
    expect(c.freshness()).toBeUndefined();
  });
});
