/**
 * Three nodes on one Redis and one simulator. The leader is killed with SIGKILL while a race is changing; a
 * subscriber on another node must see every sequence exactly once, a webhook receiver every event (at least
 * once, the same webhook-id on a repeat), and the upstream's request log must never show more than the
 * budget in any 60 s window across the hand-over.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { until } from '../e2e/harness.js';
import { describeWithRedis } from '../support/redis.js';
import { clusterClock } from './cluster-clock.js';
import {
  type ClusterSimulator,
  clusterEnv,
  leaderOf,
  type NodeProcess,
  pickOpenRace,
  raceListed,
  redisPrefix,
  registerScratchingHook,
  spawnNode,
  startClusterSimulator,
  startWebhookReceiver,
  stopNode,
} from './cluster-harness.js';
import { peakPerMinute } from './nemesis/checks.js';
import { recordRace } from './ws-recorder.js';

/**
 * The default budget. At 40 a minute the subscribed race's first document (below) waited for every race near
 * its jump with no document, and how many there are follows the wall clock's time of day (the simulated world
 * is laid on it): 60 s was not enough twice in four suite runs at 14:10-14:30 UTC, load 5-7.
 */
const BUDGET = loadConfig({}).RACING_API_MAX_RPM;

describeWithRedis('three nodes on Redis, leader killed mid-race', () => {
  const keys = redisPrefix('failover');
  let upstream: ClusterSimulator;
  let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
  const nodes: NodeProcess[] = [];

  beforeAll(async () => {
    upstream = await startClusterSimulator(BUDGET, clusterClock);
    receiver = await startWebhookReceiver();
    const env = clusterEnv({ prefix: keys.prefix, upstream: upstream.url, budget: BUDGET });
    nodes.push(await spawnNode('node-a', env));
    await until(() => leaderOf(nodes), 'node-a to lead', 15_000);
    nodes.push(...(await Promise.all([spawnNode('node-b', env), spawnNode('node-c', env)])));
  }, 240_000);

  afterAll(async () => {
    await Promise.all(nodes.map(stopNode));
    await upstream?.close();
    await receiver?.close();
    await keys.clean();
  });

  it('delivers every sequence once to a subscriber on another node and every event to webhooks', async () => {
    const [a, b, c] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    expect((await leaderOf(nodes))?.name).toBe('node-a');

    // An Open race at least 30 minutes from its jump with enough runners to scratch six.
    const race = pickOpenRace(upstream, { minLeadMs: 30 * 60_000, minRunners: 10 });
    expect(await registerScratchingHook(b, receiver.url, race.raceId)).toBe(201);
    const runners = race.runners;
    // Follower c lists the race once the leader's discovery has reached the shared log.
    await raceListed(c, race.raceId);
    const sub = await recordRace(c.url, race.raceId);
    // A subscribed race this far out waits for every race near its jump with no document, which go first
    // (issue 27, docs/architecture.md), and for the days' listings: at the busiest hour of the simulated day
    // ~25 of them, ~40 s at 40 requests a minute and 60 s not always enough at 14:00-14:30 UTC (BUDGET above).
    await until(sub.hasDocument, 'the first document of the race', 60_000);

    const scratched = (n: number) =>
      sub.events().filter((e) => e.type === 'runner.scratched').length >= n ? true : undefined;
    for (const entrant of runners.slice(0, 3)) upstream.sim.world.scratch(race.raceId, entrant);
    await until(() => scratched(3), 'three scratchings seen on node-c', 30_000);
    const midway = sub.position();

    // Kill the leader once it has spent the whole budget of the last 60 s: a new leader that counted only
    // its own requests would then go over it at once.
    const spentLastMinute = () => upstream.requests.filter((t) => t > upstream.clock.now() - 60_000).length;
    await until(() => spentLastMinute() >= BUDGET - 1 || undefined, 'a full 60 s window', 90_000);
    upstream.sim.world.scratch(race.raceId, runners[3]!);
    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = upstream.clock.now();
    upstream.sim.world.scratch(race.raceId, runners[4]!);
    const next = await until(() => leaderOf([b, c]), 'a new leader', 15_000);
    upstream.sim.world.scratch(race.raceId, runners[5]!);
    await until(() => scratched(6), 'six scratchings seen on node-c', 45_000);

    // Every sequence exactly once, in order, with no gap.
    const seqs = sub.seqsAfterSnapshot();
    const from = sub.firstSnapshot().seq! + 1;
    expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => from + i));
    const scratchedIds = sub
      .events()
      .filter((e) => e.type === 'runner.scratched')
      .map((e) => (e.data.runner as { entrantId: string }).entrantId);
    expect(new Set(scratchedIds)).toEqual(new Set(runners.slice(0, 6)));
    expect(scratchedIds).toHaveLength(6);
    expect(sub.errors).toEqual([]);

    // Every scratching reaches the webhook receiver, its webhook-id being the event id (so repeats dedupe).
    const wanted = sub
      .events()
      .filter((e) => e.type === 'runner.scratched')
      .map((e) => e.id);
    await until(
      () => wanted.every((id) => receiver.received.some((r) => r.id === id)),
      'every scratching delivered',
      30_000,
    );
    for (const r of receiver.received) expect(r.id).toBe(r.eventId);

    // The budget holds across the hand-over, as the upstream counted it: in every window its stamps can be
    // trusted (none holding a stall of this process's event loop over the window's 1 s margin).
    const trusted = peakPerMinute(upstream.requests, upstream.stalls);
    expect(trusted.peak).toBeLessThanOrEqual(BUDGET);
    // The budget was the limit, not the demand.
    expect(peakPerMinute(upstream.requests, []).peak).toBeGreaterThanOrEqual(BUDGET - 1);
    expect(next.name).not.toBe('node-a');
    expect(upstream.clock.now() - killedAt).toBeLessThan(60_000);

    // A client that left node-c midway resumes on node-b: exactly what it missed, no snapshot.
    const resumed = await recordRace(b.url, race.raceId, midway);
    const last = sub.position().seq;
    await until(() => resumed.messages.some((m) => m.seq === last), 'the resumed copy to catch up', 15_000);
    expect(resumed.messages[0]).toMatchObject({ type: 'resumed', fromSeq: midway.seq });
    expect(resumed.messages.filter((m) => m.type === 'snapshot')).toEqual([]);
    // Every seq after the midway position once, in order (live entries may follow what was missed).
    const missed = resumed.messages.flatMap((m) => (m.seq === undefined ? [] : [m.seq]));
    expect(missed.length).toBeGreaterThanOrEqual(last - midway.seq);
    expect(missed).toEqual(Array.from({ length: missed.length }, (_, i) => midway.seq + 1 + i));
    resumed.close();
    sub.close();
  }, 200_000);
});
