/**
 * One retention pass of the Redis event log after D race days of a deployment, as it is
 * (`src/store/redis/redis-retention.ts`: the streams due from `P retained`, 500 scripts a round trip) and as
 * it was (every stream of `P streams`, one script after another): the pass the leader runs every 10 minutes.
 * The log holds what D days at the real budget leave (about 1,500 streams a race day, docs/redis.md): today's
 * streams with their entries, yesterday's settled (document kept), and the D - 2 days before forgotten (a
 * head only, seeded directly: what retention left of them). Prints, per D and per way, the pass's wall time,
 * this process's CPU and the commands Redis ran (`INFO stats`, the scripts' own commands included), as the
 * median of PASSES passes in which nothing is due to change (the steady state between two race days).
 * Run: REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/redis-retention-pass.ts [days,days,...] [passes]
 */
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { Redis } from 'ioredis';
import { expireScript } from '../src/store/redis/append-script.js';
import { createRedisEventLog, redisLogKeys } from '../src/store/redis/redis-event-log.js';

const DAYS = (process.argv[2] ?? '7,30,90').split(',').map(Number);
const PASSES = Number(process.argv[3] ?? 5);
const PER_DAY = 1_500;
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = new Redis(url);
const HOUR = 3_600_000;
const now = Date.parse('2026-11-28T12:00:00Z');
const policy = { settledBefore: new Date(now - 24 * HOUR), forgetBefore: new Date(now - 48 * HOUR) };
const document = { race: 'r', runners: Array.from({ length: 12 }, (_, i) => ({ n: i + 1, odds: 3.5 + i })) };

const commands = async () => Number(/^total_commands_processed:(\d+)/m.exec(await redis.info('stats'))?.[1]);

async function seed(prefix: string, days: number) {
  const log = createRedisEventLog({ redis, prefix });
  const keys = redisLogKeys(prefix);
  const write = (stream: string, at: number) =>
    log.append(stream, {
      entries: [
        { kind: 'snapshot', document },
        { kind: 'event', event: { type: 'a', meetingId: 'm', raceId: stream, data: {} } },
      ],
      document,
      now: new Date(at),
    });
  for (let i = 0; i < PER_DAY; i++) await write(`today-${i}`, now - HOUR);
  for (let i = 0; i < PER_DAY; i++) await write(`yesterday-${i}`, now - 30 * HOUR);
  await log.expire(policy); // yesterday's settle: from here on, a pass changes nothing
  const { epoch } = await log.head('today-0');
  for (let d = 2; d < days; d++) {
    const tx = redis.pipeline();
    for (let i = 0; i < PER_DAY; i++) {
      const stream = `day${d}-${i}`;
      tx.sadd(keys.streams, stream);
      tx.hset(keys.head(stream), {
        epoch,
        seq: 2,
        documentSeq: 0,
        patchesSince: 0,
        updatedAt: now - d * 24 * HOUR,
      });
    }
    await tx.exec();
  }
  return { log, keys };
}

/** The pass as it was before the retained index: every stream ever written, one round trip each. */
async function passAsItWas(keys: ReturnType<typeof redisLogKeys>) {
  const cutoffs = [policy.settledBefore.getTime(), policy.forgetBefore.getTime()];
  for (const s of await redis.smembers(keys.streams))
    await expireScript.run(
      redis,
      [keys.head(s), keys.document(s), keys.entries(s), keys.patches(s)],
      cutoffs,
    );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function measure(pass: () => Promise<unknown>) {
  const wall: number[] = [];
  const cpu: number[] = [];
  const cmds: number[] = [];
  for (let i = 0; i < PASSES; i++) {
    const c0 = await commands();
    const u0 = process.cpuUsage();
    const t0 = performance.now();
    await pass();
    wall.push(performance.now() - t0);
    const u = process.cpuUsage(u0);
    cpu.push((u.user + u.system) / 1_000);
    cmds.push((await commands()) - c0 - 1); // less the INFO itself
  }
  return { wallMs: median(wall), cpuMs: median(cpu), commands: median(cmds) };
}

console.log(
  `redis-retention-pass: ${cpus()[0]?.model} x${cpus().length}, node ${process.version}, ${PASSES} passes each`,
);
console.log('days | streams ever | way | pass wall ms | CPU ms | Redis commands');
for (const days of DAYS) {
  const prefix = `racewire-bench:${randomUUID()}:`;
  const { log, keys } = await seed(prefix, days);
  const streams = await redis.scard(keys.streams);
  for (const [way, pass] of [
    ['as it was', () => passAsItWas(keys)],
    ['retained index', () => log.expire(policy)],
  ] as const) {
    const m = await measure(pass);
    console.log(
      `${days} | ${streams} | ${way} | ${m.wallMs.toFixed(1)} | ${m.cpuMs.toFixed(1)} | ${m.commands}`,
    );
  }
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    if (found.length > 0) await redis.unlink(...found);
    cursor = next;
  } while (cursor !== '0');
}
await redis.quit();
