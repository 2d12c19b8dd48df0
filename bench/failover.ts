/**
 * Failover time: two racewire nodes on Redis poll the simulator; a subscriber on the follower watches a race
 * whose odds move every 250 ms. The leader is killed with SIGKILL; the time from the kill to the first
 * event the new leader observed (stamped after the kill, as the subscriber receives it) is the failover
 * time. Repeated --runs times.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/failover.ts [--runs 5] [--ttl 5000]
 */
import { parseArgs } from 'node:util';
import {
  clusterEnv,
  leaderOf,
  type NodeProcess,
  redisPrefix,
  spawnNode,
  startClusterSimulator,
  stopNode,
} from '../test/cluster/cluster-harness.js';
import { recordRace } from '../test/cluster/ws-recorder.js';
import { until } from '../test/e2e/harness.js';

async function once(ttlMs: number) {
  const keys = redisPrefix('bench-failover');
  const upstream = await startClusterSimulator(100);
  const env = {
    ...clusterEnv({ prefix: keys.prefix, upstream: upstream.url, budget: 100 }),
    LEASE_TTL_MS: String(ttlMs),
  };
  const nodes: NodeProcess[] = [await spawnNode('a', env)];
  await until(() => leaderOf(nodes), 'a to lead', 30_000);
  nodes.push(await spawnNode('b', env));
  const [a, b] = nodes as [NodeProcess, NodeProcess];
  const now = Date.now();
  const race = upstream.sim.world.races.find((r) => {
    const v = upstream.sim.world.raceView(r.id, now);
    return v.status === 'Open' && Date.parse(v.startTime) > now + 30 * 60_000;
  })!;
  const runner = upstream.sim.world.raceView(race.id).runners.find((r) => !r.scratched)!;
  await until(
    async () => JSON.stringify((await b.get('/v1/meetings')).body).includes(race.id),
    'race listed',
    30_000,
  );
  const sub = await recordRace(b.url, race.id);
  await until(sub.hasDocument, 'first document', 30_000);
  let price = 5;
  const mover = setInterval(() => {
    price = price === 5 ? 6 : 5;
    upstream.sim.world.moveOdds(race.id, runner.entrantId, price);
  }, 250);
  await until(() => sub.events().length >= 8 || undefined, 'odds moving', 30_000);

  a.child.kill('SIGKILL');
  const killedAt = Date.now();
  await a.exited;
  await until(
    () => sub.events().some((e) => Date.parse(e.timestamp) > killedAt) || undefined,
    'an event after the kill',
    60_000,
  );
  const failoverMs = Date.now() - killedAt;
  clearInterval(mover);
  sub.close();
  await Promise.all(nodes.map(stopNode));
  await upstream.close();
  await keys.clean();
  return failoverMs;
}

async function main() {
  const { values } = parseArgs({
    options: { runs: { type: 'string', default: '5' }, ttl: { type: 'string', default: '5000' } },
  });
  const runs: number[] = [];
  for (let i = 0; i < Number(values.runs); i++) {
    runs.push(await once(Number(values.ttl)));
    console.error(`run ${i + 1}: ${runs.at(-1)} ms`);
  }
  const sorted = [...runs].sort((x, y) => x - y);
  console.log(
    JSON.stringify({
      leaseTtlMs: Number(values.ttl),
      runsMs: runs,
      medianMs: sorted[Math.floor(sorted.length / 2)],
      maxMs: sorted.at(-1),
    }),
  );
  process.exit(0);
}

void main();
