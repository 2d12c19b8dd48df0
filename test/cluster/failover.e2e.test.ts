/**
 * Three nodes on one Redis and one simulator. The leader is killed with SIGKILL while a race is changing; a
 * subscriber on another node must see every sequence exactly once, a webhook receiver every event (at least
 * once, the same webhook-id on a repeat), and the upstream's request log must never show more than the
 * budget in any 60 s window across the hand-over.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from '../e2e/harness.js';
import {
  type ClusterSimulator,
  clusterEnv,
  leaderOf,
  maxInAnyMinute,
  type NodeProcess,
  redisPrefix,
  spawnNode,
  startClusterSimulator,
  stopNode,
} from './cluster-harness.js';
import { recordRace } from './ws-recorder.js';

const BUDGET = 40;

/** Collects webhook-ids and event types; answers 204 to each. */
async function startReceiver() {
  const received: { id: string; type: string; eventId: string }[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const event = JSON.parse(body) as { id: string; type: string };
      received.push({ id: String(req.headers['webhook-id']), type: event.type, eventId: event.id });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, received, close: () => new Promise((r) => server.close(r)) };
}

describe.skipIf(!process.env.REDIS_URL)('three nodes on Redis, leader killed mid-race', () => {
  const keys = redisPrefix('failover');
  let upstream: ClusterSimulator;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const nodes: NodeProcess[] = [];

  beforeAll(async () => {
    upstream = await startClusterSimulator(BUDGET);
    receiver = await startReceiver();
    const env = clusterEnv({ prefix: keys.prefix, upstream: upstream.url, budget: BUDGET });
    nodes.push(await spawnNode('node-a', env));
    await until(() => leaderOf(nodes), 'node-a to lead', 15_000);
    nodes.push(...(await Promise.all([spawnNode('node-b', env), spawnNode('node-c', env)])));
  }, 60_000);

  afterAll(async () => {
    await Promise.all(nodes.map(stopNode));
    await upstream?.close();
    await receiver?.close();
    await keys.clean();
  });

  it('delivers every sequence once to a subscriber on another node and every event to webhooks', async () => {
    const [a, b, c] = nodes as [NodeProcess, NodeProcess, NodeProcess];
    expect((await leaderOf(nodes))?.name).toBe('node-a');

    const created = await fetch(`${b.url}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, eventTypes: ['runner.scratched'] }),
    });
    expect(created.status).toBe(201);

    // An Open race at least 30 minutes from its jump with enough runners to scratch six.
    const now = Date.now();
    const race = upstream.sim.world.races.find((r) => {
      const view = upstream.sim.world.raceView(r.id, now);
      return (
        view.status === 'Open' &&
        Date.parse(view.startTime) > now + 30 * 60_000 &&
        view.runners.filter((x) => !x.scratched).length >= 10
      );
    });
    if (!race) throw new Error('no suitable race in the simulated day');
    const runners = upstream.sim.world
      .raceView(race.id)
      .runners.filter((r) => !r.scratched)
      .map((r) => r.entrantId);

    // Follower c lists the race once the leader's discovery has reached the shared log.
    const listed = async () => {
      const { body } = await c.get('/v1/meetings');
      return (body.meetings as { races: { raceId: string }[] }[]).some((m) =>
        m.races.some((r) => r.raceId === race.id),
      );
    };
    await until(listed, 'race listed on node-c', 20_000);
    const sub = await recordRace(c.url, race.id);
    await until(sub.hasDocument, 'the first document of the race', 20_000);

    const scratched = (n: number) =>
      sub.events().filter((e) => e.type === 'runner.scratched').length >= n ? true : undefined;
    for (const entrant of runners.slice(0, 3)) upstream.sim.world.scratch(race.id, entrant);
    await until(() => scratched(3), 'three scratchings seen on node-c', 30_000);

    // Kill the leader once it has spent the whole budget of the last 60 s: a new leader that counted only
    // its own requests would then go over it at once.
    const spentLastMinute = () => upstream.requests.filter((t) => t > Date.now() - 60_000).length;
    await until(() => spentLastMinute() >= BUDGET - 1 || undefined, 'a full 60 s window', 90_000);
    upstream.sim.world.scratch(race.id, runners[3]!);
    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();
    upstream.sim.world.scratch(race.id, runners[4]!);
    const next = await until(() => leaderOf([b, c]), 'a new leader', 15_000);
    upstream.sim.world.scratch(race.id, runners[5]!);
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

    // The budget holds across the hand-over, as the upstream counted it.
    const peak = maxInAnyMinute(upstream.requests);
    expect(peak).toBeLessThanOrEqual(BUDGET);
    expect(peak).toBeGreaterThanOrEqual(BUDGET - 1); // the budget was the limit, not the demand
    expect(next.name).not.toBe('node-a');
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    sub.close();
  }, 200_000);
});
