/**
 * Redis killed and restarted under two nodes: neither crashes, both keep their connections and say in
 * readiness that Redis is away, and once it is back the change made meanwhile reaches the subscriber (on
 * the follower) and the webhook receiver, with no sequence skipped. The test runs its own redis-server
 * (append-only file, fsync always, as an operator would persist it) so that it can kill it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { until } from '../e2e/harness.js';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import { clusterClock } from './cluster-clock.js';
import {
  type ClusterSimulator,
  clusterEnv,
  freePort,
  leaderOf,
  type NodeProcess,
  pickOpenRace,
  raceListed,
  registerScratchingHook,
  spawnNode,
  startClusterSimulator,
  startWebhookReceiver,
  stopNode,
} from './cluster-harness.js';
import { type OwnRedis, startOwnRedis } from './nemesis/redis-server.js';
import { recordRace } from './ws-recorder.js';

describeWithRedis('Redis away and back under two nodes', () => {
  let redis: OwnRedis;
  let upstream: ClusterSimulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const nodes: NodeProcess[] = [];

  beforeAll(async () => {
    requireRedisServer();
    redis = await startOwnRedis(await freePort());
    upstream = await startClusterSimulator(60, clusterClock);
    receiver = await startWebhookReceiver();
    const env = {
      ...clusterEnv({ prefix: 'racewire:', upstream: upstream.url, budget: 60 }),
      REDIS_URL: redis.url,
    };
    nodes.push(await spawnNode('leader', env));
    await until(() => leaderOf(nodes), 'a leader', 15_000);
    nodes.push(await spawnNode('follower', env));
  }, 240_000);

  afterAll(async () => {
    await Promise.all(nodes.map(stopNode));
    await redis?.close();
    await upstream?.close();
    await receiver?.close();
  });

  it('keeps serving, reports Redis in readiness, and catches up without loss when Redis returns', async () => {
    const [leader, follower] = nodes as [NodeProcess, NodeProcess];
    const race = pickOpenRace(upstream, { minLeadMs: 30 * 60_000, minRunners: 8 });
    expect(await registerScratchingHook(leader, receiver.url, race.raceId)).toBe(201);
    const [first, second] = race.runners;
    await raceListed(follower, race.raceId);
    const sub = await recordRace(follower.url, race.raceId);
    await until(sub.hasDocument, 'the first document of the race', 20_000);
    const scratchings = () => sub.events().filter((e) => e.type === 'runner.scratched');
    // Webhooks are at least once: a repeat (same webhook-id, after a lease hand-over on a busy machine) is
    // one delivery, so deliveries are counted by distinct webhook-id.
    const delivered = () => new Set(receiver.received.map((r) => r.id)).size;

    upstream.sim.world.scratch(race.raceId, first!);
    await until(() => scratchings().length === 1 || undefined, 'the first scratching', 30_000);
    await until(() => delivered() === 1 || undefined, 'the first delivery', 30_000);

    await redis.kill();
    // Readiness names Redis: each check runs in the background with its own deadline, so another check that
    // touches Redis (the store, the generation key) may say 503 a run before the redis check does.
    const ready = await until(
      async () => {
        const res = await follower.get('/readyz');
        return res.body.checks.redis?.ok === false ? res : undefined;
      },
      'follower not ready: redis',
      15_000,
    );
    expect(ready.status).toBe(503);
    upstream.sim.world.scratch(race.raceId, second!);
    // Both nodes still answer and the subscriber's connection stays open while Redis is away.
    await until(async () => (await leader.get('/readyz')).status === 503, 'leader not ready', 15_000);
    expect((await leader.get('/healthz')).status).toBe(200);
    expect((await follower.get('/healthz')).status).toBe(200);
    expect(sub.closed()).toBe(false);

    await redis.start();
    await until(
      () => scratchings().length === 2 || undefined,
      'the scratching made during the outage',
      45_000,
    );
    await until(() => delivered() === 2 || undefined, 'its delivery', 30_000);
    await until(
      async () => (await follower.get('/readyz')).body.checks.redis.ok === true,
      'redis ok again',
      15_000,
    );

    const seqs = sub.seqsAfterSnapshot();
    const from = sub.firstSnapshot().seq! + 1;
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => from + i));
    expect(new Set(receiver.received.map((r) => r.id))).toEqual(new Set(scratchings().map((e) => e.id)));
    expect(leader.child.exitCode).toBeNull();
    expect(follower.child.exitCode).toBeNull();
    sub.close();
  }, 150_000);
});
