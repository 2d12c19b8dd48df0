/**
 * Failover time: two racewire nodes on Redis poll the simulator; a subscriber on the follower watches a race
 * whose odds move every 250 ms (the new leader fetches a subscribed race right after its first discovery). The leader is killed with SIGKILL; the time from the kill to the first
 * event the new leader observed (stamped after the kill, as the subscriber receives it) is the failover
 * time. Repeated --runs times.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/failover.ts [--runs 5] [--ttl 5000]
 */
import { parseArgs } from 'node:util';
import { clusterClock } from '../test/cluster/cluster-clock.js';
import {
  clusterEnv,
  leaderOf,
  type NodeProcess,
  pickOpenRace,
  raceListed,
  redisPrefix,
  spawnNode,
  startClusterSimulator,
  stopNode,
} from '../test/cluster/cluster-harness.js';
import { recordRace } from '../test/cluster/ws-recorder.js';
import { until } from '../test/e2e/harness.js';

async function once(ttlMs: number) {
  const keys = redisPrefix('bench-failover');
  const upstream = await startClusterSimulator(100, clusterClock);
  const env = {
    ...clusterEnv({ prefix: keys.prefix, upstream: upstream.url, budget: 100 }),
    LEASE_TTL_MS: String(ttlMs),
  };
  const nodes: NodeProcess[] = [await spawnNode('a', env)];
  await until(() => leaderOf(nodes), 'a to lead', 30_000);
  nodes.push(await spawnNode('b', env));
  const [a, b] = nodes as [NodeProcess, NodeProcess];
  const { raceId, runners } = pickOpenRace(upstream, { minLeadMs: 30 * 60_000, minRunners: 1 });
  await raceListed(b, raceId);
  const sub = await recordRace(b.url, raceId);
  await until(sub.hasDocument, 'first document', 30_000);
  // A new price every 250 ms (always different, so any fetch sees a change).
  let price = 5;
  const mover = setInterval(() => {
    price = Math.round((price + 0.1) * 10) / 10;
    upstream.sim.world.moveOdds(raceId, runners[0]!, price);
  }, 250);
  await until(() => sub.events().length > 0 || undefined, 'odds moving', 30_000);

  a.child.kill('SIGKILL');
  // On the simulator's clock, as the nodes' event timestamps are.
  const killedAt = upstream.clock.now();
  await a.exited;
  await until(
    () => sub.events().some((e) => Date.parse(e.timestamp) > killedAt) || undefined,
    'an event after the kill',
    60_000,
  );
  const failoverMs = upstream.clock.now() - killedAt;
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
