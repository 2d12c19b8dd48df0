/**
 * Cost of one cluster sync (src/cluster/cluster-state.ts) of a leader and of a follower, with the freshness
 * the Redis soak's leader published (measured at race hour 26: 586 live races' last good fetch, three listed
 * days of 748 race ids each; 122 KB as one JSON value), on a real Redis. Every tenth sync one race's fetch
 * moves on (lastGoodAt changes at every sync at the real budget) and every 600th a day is listed again (its
 * refreshedAt moves: at most every minute, a live day's cadence). Prints, per sync, the CPU of this process
 * (both nodes' syncs, run one after the other) and the bytes Redis received and sent (`INFO stats`).
 * Run: REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/cluster-sync-cost.ts [syncs]
 */
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { Redis } from 'ioredis';
import { createManualClock } from '../src/clock.js';
import { createClusterState } from '../src/cluster/cluster-state.js';

const SYNCS = Number(process.argv[2] ?? 3_000);
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `racewire-bench:${randomUUID()}:`;

const leaderRedis = new Redis(url);
const followerRedis = new Redis(url);
const clock = createManualClock(Date.parse('2026-11-20T19:00:00Z'));
const leader = createClusterState({ redis: leaderRedis, prefix, nodeId: 'leader', clock });
const follower = createClusterState({ redis: followerRedis, prefix, nodeId: 'follower', clock });

const days = ['2026-11-19', '2026-11-20', '2026-11-21'].map((date, d) => ({
  date,
  refreshedAt: clock.now() - 60_000 * (d + 1),
  raceIds: Array.from({ length: 748 }, () => randomUUID()),
  listedSettled: d < 2,
}));
const lastGoodAt: Record<string, number> = {};
for (const id of days[1]!.raceIds.slice(0, 586)) lastGoodAt[id] = clock.now() - 30_000;
const live = Object.keys(lastGoodAt);

async function netBytes(): Promise<{ input: number; output: number }> {
  const info = await leaderRedis.info('stats');
  const field = (name: string) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1]);
  return { input: field('total_net_input_bytes'), output: field('total_net_output_bytes') };
}

const cpuUs = async (work: () => Promise<void>): Promise<number> => {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return used.user + used.system;
};

async function run(n: number): Promise<{ leaderUs: number; followerUs: number }> {
  let leaderUs = 0;
  let followerUs = 0;
  for (let i = 0; i < n; i++) {
    await clock.advance(1_000);
    if (i % 10 === 0) lastGoodAt[live[i % live.length]!] = clock.now();
    if (i % 600 === 0) days[2] = { ...days[2]!, refreshedAt: clock.now() };
    const freshness = { discoveredAt: clock.now(), lastGoodAt: { ...lastGoodAt }, days: [...days] };
    leaderUs += await cpuUs(() => leader.sync({ subscribers: new Map([['R1', 1]]), freshness }));
    followerUs += await cpuUs(() => follower.sync({ subscribers: new Map([['R2', 1]]) }));
  }
  return { leaderUs, followerUs };
}

await run(300); // warm-up
const before = await netBytes();
const { leaderUs, followerUs } = await run(SYNCS);
const after = await netBytes();
const per = (x: number) => Math.round(x / SYNCS);
console.log(
  `${SYNCS} syncs of a leader and a follower (${cpus()[0]?.model}, node ${process.version}, ${new Date().toISOString()})`,
);
console.log(`leader CPU ${per(leaderUs)} us a sync, follower CPU ${per(followerUs)} us a sync`);
console.log(
  `Redis received ${per(after.input - before.input)} bytes and sent ${per(after.output - before.output)} bytes a sync of both`,
);
const keys = await leaderRedis.keys(`${prefix}*`);
if (keys.length) await leaderRedis.del(...keys);
await Promise.all([leaderRedis.quit(), followerRedis.quit()]);
