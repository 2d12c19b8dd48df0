/**
 * One retention pass of the event log after D race days of a deployment (the pass the leader runs every 10
 * minutes), on SQLite and on Redis, as it is and as it was. The log holds what D days at the real budget leave
 * (about 1,500 streams a race day, docs/redis.md): today's streams with their entries, yesterday's settled
 * (document kept), and the D - 2 days before forgotten (a head only, seeded directly: what retention left of
 * them).
 * - SQLite: as it is, the streams of the partial index `log_streams_retained`; as it was, every row of
 *   `log_streams` last written before the cutoff, each with its oldest entry looked up (the old loop, which in
 *   a pass where nothing is due changes nothing). The pass is synchronous: its wall time is time the event
 *   loop is blocked.
 * - Redis: as it is, the due streams of `P retained`, 500 scripts a round trip
 *   (`src/store/redis/redis-retention.ts`); as it was, every stream of `P streams`, one script after another.
 * Prints, per store, D and way, the pass's wall time, this process's CPU and (Redis) the commands Redis ran
 * (`INFO stats`, the scripts' own commands included), as the median of PASSES passes in which nothing is due
 * to change (the steady state between two race days).
 * Run: REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/retention-pass.ts [days,days,...] [passes]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { EventLog } from '../src/store/ports.js';
import { expireScript } from '../src/store/redis/append-script.js';
import { type RedisLogKeys, redisLogKeys } from '../src/store/redis/log-keys.js';
import { createRedisEventLog } from '../src/store/redis/redis-event-log.js';
import { openDatabase } from '../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../src/store/sqlite/sqlite-event-log.js';

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

/** Today's and yesterday's streams through the log's own appends, yesterday's settled by a first pass. */
async function seedRecent(log: EventLog) {
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
  return (await log.head('today-0')).epoch;
}

async function seedRedis(prefix: string, days: number) {
  const log = createRedisEventLog({ redis, prefix });
  const keys = redisLogKeys(prefix);
  const epoch = await seedRecent(log);
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

function seedSqlite() {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-retention-'));
  const db = openDatabase(join(dir, 'log.db'));
  return { dir, db, log: createSqliteEventLog({ db }) };
}

/** The SQLite pass as it was before `retained`: every row last written before the cutoff, its oldest entry looked up. */
function sqlitePassAsItWas(db: ReturnType<typeof openDatabase>) {
  const oldest = db.prepare('SELECT MIN(seq) FROM log_entries WHERE stream = ?').pluck();
  const idle = db.prepare(
    'SELECT stream, seq, document_seq, checkpoint_seq, updated_at FROM log_streams WHERE updated_at < ?',
  );
  // In one transaction, as the adapter's pass ran.
  db.transaction(() => {
    for (const row of idle.all(policy.settledBefore.getTime()) as Array<{ stream: string }>)
      oldest.get(row.stream);
  })();
}

/** The Redis pass as it was before the retained index: every stream ever written, one round trip each. */
async function passAsItWas(keys: RedisLogKeys) {
  const cutoffs = [policy.settledBefore.getTime(), policy.forgetBefore.getTime()];
  for (const s of await redis.smembers(keys.streams))
    await expireScript.run(
      redis,
      [keys.head(s), keys.document(s), keys.entries(s), keys.patches(s)],
      cutoffs,
    );
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
async function measure(pass: () => unknown, redisCommands: boolean) {
  const wall: number[] = [];
  const cpu: number[] = [];
  const cmds: number[] = [];
  for (let i = 0; i < PASSES; i++) {
    const c0 = redisCommands ? await commands() : 0;
    const u0 = process.cpuUsage();
    const t0 = performance.now();
    await pass();
    wall.push(performance.now() - t0);
    const u = process.cpuUsage(u0);
    cpu.push((u.user + u.system) / 1_000);
    cmds.push(redisCommands ? (await commands()) - c0 - 1 : 0); // less the INFO itself
  }
  return { wallMs: median(wall), cpuMs: median(cpu), commands: median(cmds) };
}

console.log(
  `retention-pass: ${cpus()[0]?.model} x${cpus().length}, node ${process.version}, ${PASSES} passes each`,
);
console.log('store | days | streams ever | way | pass wall ms | CPU ms | Redis commands');
const row = (
  store: string,
  days: number,
  streams: number,
  way: string,
  m: Awaited<ReturnType<typeof measure>>,
) =>
  console.log(
    `${store} | ${days} | ${streams} | ${way} | ${m.wallMs.toFixed(1)} | ${m.cpuMs.toFixed(1)} | ${store === 'redis' ? m.commands : ''}`,
  );
for (const days of DAYS) {
  const { dir, db, log } = seedSqlite();
  const epoch = await seedRecent(log);
  const forgotten = db.prepare(
    `INSERT INTO log_streams (stream, epoch, seq, document_seq, checkpoint_seq, patches_since, updated_at, retained)
     VALUES (?, ?, 2, 0, 0, 0, ?, 0)`,
  );
  db.transaction(() => {
    for (let d = 2; d < days; d++)
      for (let i = 0; i < PER_DAY; i++) forgotten.run(`day${d}-${i}`, epoch, now - d * 24 * HOUR);
  })();
  const streams = db.prepare('SELECT COUNT(*) FROM log_streams').pluck().get() as number;
  row('sqlite', days, streams, 'as it was', await measure(() => sqlitePassAsItWas(db), false));
  row('sqlite', days, streams, 'retained index', await measure(() => log.expire(policy), false));
  db.close();
  rmSync(dir, { recursive: true, force: true });
}
for (const days of DAYS) {
  const prefix = `racewire-bench:${randomUUID()}:`;
  const { log, keys } = await seedRedis(prefix, days);
  const streams = await redis.scard(keys.streams);
  row('redis', days, streams, 'as it was', await measure(() => passAsItWas(keys), true));
  row('redis', days, streams, 'retained index', await measure(() => log.expire(policy), true));
  let cursor = '0';
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1_000);
    if (found.length > 0) await redis.unlink(...found);
    cursor = next;
  } while (cursor !== '0');
}
await redis.quit();
