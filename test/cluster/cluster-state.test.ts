import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it, vi } from 'vitest';
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

  describe("the leader's days", () => {
    const day = (refreshedAt: number, raceIds = ['R1', 'R2']) => ({
      date: '2025-07-17',
      refreshedAt,
      raceIds,
      listedSettled: false,
    });
    const freshness = (days: ReturnType<typeof day>[]) => ({ discoveredAt: 1, lastGoodAt: { R1: 2 }, days });

    function nodes(name: string) {
      const p = `${prefix}${name}:`;
      const clock = createManualClock(3_000_000);
      const leaderRedis = new Redis(url ?? '', { maxRetriesPerRequest: 1 });
      const followerRedis = new Redis(url ?? '', { maxRetriesPerRequest: 1 });
      const leader = createClusterState({ redis: leaderRedis, prefix: p, nodeId: 'L', clock });
      const follower = createClusterState({ redis: followerRedis, prefix: p, nodeId: 'F', clock });
      const gets = (client: Redis) => {
        const spy = vi.spyOn(client, 'get');
        return (key: string) => spy.mock.calls.filter(([k]) => k === `${p}${key}`).length;
      };
      const close = () => Promise.all([leaderRedis.quit(), followerRedis.quit()]);
      return {
        p,
        clock,
        leader,
        follower,
        leaderGets: gets(leaderRedis),
        followerGets: gets(followerRedis),
        close,
      };
    }

    it('are written when they change and read by a follower only then; the leader reads back nothing', async () => {
      const n = nodes('days');
      await n.leader.sync({ subscribers: new Map(), freshness: freshness([day(10)]) });
      await n.follower.sync({ subscribers: new Map() });
      expect(n.follower.freshness()).toEqual({ leader: 'L', ...freshness([day(10)]) });
      expect(n.followerGets('freshness:days')).toBe(1);

      // The same days again: the key is kept alive, not written (a marker put there stays), and not read.
      await redis.set(`${n.p}freshness:days`, JSON.stringify({ version: 'marker', days: [] })); // no TTL
      await n.clock.advance(1_000);
      await n.leader.sync({ subscribers: new Map(), freshness: freshness([day(10)]) });
      await n.follower.sync({ subscribers: new Map() });
      expect(JSON.parse((await redis.get(`${n.p}freshness:days`)) ?? '')).toEqual({
        version: 'marker',
        days: [],
      });
      expect(await redis.pttl(`${n.p}freshness:days`)).toBeGreaterThan(0); // the sync gave it its TTL again
      expect(n.followerGets('freshness:days')).toBe(1);
      expect(n.follower.freshness()?.days).toEqual([day(10)]);

      // Listed again: written, and the follower reads them once.
      await n.leader.sync({ subscribers: new Map(), freshness: freshness([day(20, ['R1', 'R2', 'R3'])]) });
      await n.follower.sync({ subscribers: new Map() });
      await n.follower.sync({ subscribers: new Map() });
      expect(n.follower.freshness()?.days).toEqual([day(20, ['R1', 'R2', 'R3'])]);
      expect(n.followerGets('freshness:days')).toBe(2);

      expect(n.leader.freshness()).toEqual({ leader: 'L', ...freshness([day(20, ['R1', 'R2', 'R3'])]) });
      expect(n.leaderGets('freshness')).toBe(0);
      expect(n.leaderGets('freshness:days')).toBe(0);
      await n.close();
    });

    it('are written again when their key is found gone, or after another leader wrote others', async () => {
      const n = nodes('gone');
      await n.leader.sync({ subscribers: new Map(), freshness: freshness([day(10)]) });
      await redis.del(`${n.p}freshness:days`);
      await n.leader.sync({ subscribers: new Map(), freshness: freshness([day(10)]) }); // finds it gone
      expect(await redis.get(`${n.p}freshness:days`)).toBeNull();
      await n.leader.sync({ subscribers: new Map(), freshness: freshness([day(10)]) });
      expect(JSON.parse((await redis.get(`${n.p}freshness:days`)) ?? '').days).toEqual([day(10)]);

      // L follows while F leads with other days, then L leads again with its own: they are written.
      await n.leader.sync({ subscribers: new Map() });
      await n.follower.sync({ subscribers: new Map(), freshness: freshness([day(30)]) });
      await n.leader.sync({ subscribers: new Map(), freshness: freshness([day(10)]) });
      expect(JSON.parse((await redis.get(`${n.p}freshness:days`)) ?? '').days).toEqual([day(10)]);
      await n.close();
    });

    it('are read inline from a leader of the version before (a rolling upgrade)', async () => {
      const n = nodes('inline');
      await redis.set(
        `${n.p}freshness`,
        JSON.stringify({ leader: 'old', ...freshness([day(10)]) }),
        'PX',
        3_000,
      );
      await n.follower.sync({ subscribers: new Map() });
      expect(n.follower.freshness()).toEqual({ leader: 'old', ...freshness([day(10)]) });
      expect(n.followerGets('freshness:days')).toBe(0);
      await n.close();
    });
  });
});
