/**
 * Two nodes in this process (the real runtime, STORE=redis) on a redis-server of the test's own, which goes
 * away and comes back several times: killed, restarted without its data, and its pub/sub connections
 * dropped. No Redis command anywhere in the runtime may reject unhandled (that killed a node in the
 * nemesis), both nodes keep answering, and once Redis is back a change polled by the leader reaches a
 * subscriber on the follower again (the bus subscribed again after every reconnection).
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { type Racewire, startRacewire } from '../../src/runtime.js';
import { until } from '../e2e/harness.js';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import {
  type ClusterSimulator,
  clusterEnv,
  freePort,
  pickOpenRace,
  startClusterSimulator,
} from './cluster-harness.js';
import { type OwnRedis, startOwnRedis } from './nemesis/redis-server.js';
import { recordRace } from './ws-recorder.js';

describeWithRedis('Redis away and back under two in-process nodes', () => {
  let redis: OwnRedis;
  let upstream: ClusterSimulator;
  const nodes: Racewire[] = [];
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    requireRedisServer();
    process.on('unhandledRejection', onUnhandled);
    redis = await startOwnRedis(await freePort());
    // The nodes run in this process, on the system clock: so does their simulator.
    upstream = await startClusterSimulator(60, systemClock);
    const env = {
      ...clusterEnv({ prefix: 'racewire:', upstream: upstream.url, budget: 60 }),
      REDIS_URL: redis.url,
      PORT: '0',
      LOG_LEVEL: 'silent',
    };
    nodes.push(await startRacewire({ config: loadConfig({ ...env, NODE_ID: 'a' }) }));
    await until(() => nodes[0]!.backend.leadership.isLeader() || undefined, 'a leader', 15_000);
    nodes.push(await startRacewire({ config: loadConfig({ ...env, NODE_ID: 'b' }) }));
  }, 120_000);

  afterAll(async () => {
    for (const n of nodes) await n.stop();
    await redis?.close();
    await upstream?.close();
    process.off('unhandledRejection', onUnhandled);
  }, 60_000);

  const readyz = async (node: Racewire) => {
    const res = await node.app.inject({ method: 'GET', url: '/readyz' });
    return res.json() as { checks: { redis: { ok: boolean } } };
  };
  /** Waits until every node has noticed Redis gone and failed its checks `times` times over. */
  const awayFor = async (times: number) => {
    for (const node of nodes) {
      for (let i = 0; i < times; i++)
        await until(async () => (await readyz(node)).checks.redis.ok === false || undefined, 'redis away');
      await until(() => !node.backend.status().redisUp || undefined, 'redis seen away', 15_000);
    }
  };
  const back = () =>
    Promise.all(
      nodes.map((node) =>
        until(async () => (await readyz(node)).checks.redis.ok || undefined, 'redis back', 30_000),
      ),
    );

  it('rejects no Redis command unhandled, keeps serving, and delivers across nodes once Redis is back', async () => {
    const race = pickOpenRace(upstream, { minLeadMs: 30 * 60_000, minRunners: 8 });
    await until(
      () => nodes[1]!.backend.sharedView?.races().has(race.raceId) || undefined,
      'race listed',
      30_000,
    );

    // Killed, with time for every retry budget (maxRetriesPerRequest) to run out, then back with its data.
    await redis.kill();
    await awayFor(3);
    await redis.start();
    await back();
    // Restarted without its data (a new epoch, a new fence, no subscriptions), twice in a row.
    await redis.restart(false, 500);
    await redis.restart(false, 2_500);
    await back();
    // The subscriber connections dropped while Redis stays up (the bus subscribes again).
    const admin = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    for (let i = 0; i < 3; i++) await admin.client('KILL', 'TYPE', 'pubsub');
    admin.disconnect();

    expect(unhandled).toEqual([]);
    const leader = await until(() => nodes.find((n) => n.backend.leadership.isLeader()), 'a leader', 30_000);
    const follower = nodes.find((n) => n !== leader)!;
    const sub = await recordRace(follower.url, race.raceId);
    await until(sub.hasDocument, 'the race document on the follower', 30_000);
    upstream.sim.world.scratch(race.raceId, race.runners[0]!);
    await until(
      () => sub.events().some((e) => e.type === 'runner.scratched') || undefined,
      'the scratching on the follower',
      45_000,
    );
    sub.close();
    expect(unhandled).toEqual([]);
    expect(leader.app.server.listening && follower.app.server.listening).toBe(true);
  }, 240_000);
});
