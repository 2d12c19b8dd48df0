/**
 * A simulated race day into the SQLite event log: racewire's poller and scheduler against the simulator on a
 * manual clock at 100 requests a minute (as bench/freshness.ts), every race and meeting change appended to a
 * real SQLite file in a temporary DATA_DIR. Prints what share of /events payloads were unchanged, the
 * process's CPU time (the simulator's included: compare runs), and the bytes on disk: the file, its WAL, and
 * the pages in use. Then, as the service would a day later: the webhook feed trimmed (as the outbox does once
 * it has read it) and the default retention applied (src/cluster/retention.ts), with the pages in use after.
 *
 *   npx tsx bench/store-day.ts [--hours 24] [--from 2026-11-19T14:00:00Z] [--seed 7]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryBus } from '../src/bus/bus.js';
import { retentionPolicy } from '../src/cluster/retention.js';
import { createSqliteEventLog, openDatabase } from '../src/store/index.js';
import { FEED_START } from '../src/store/ports.js';
import { createPollingRole } from '../src/watch/polling-role.js';
import { simulatedUpstream } from './support/simulated-upstream.js';

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i += 2)
  args.set(process.argv[i]!.replace(/^--/, ''), process.argv[i + 1]!);
const HOURS = Number(args.get('hours') ?? 24);
const SEED = Number(args.get('seed') ?? 7);
const DAY = '2026-11-20';
// The timetable's racing runs from 14:15 UTC the day before DAY to 17:02 UTC on DAY.
const FROM = Date.parse(args.get('from') ?? '2026-11-19T14:00:00Z');
const TO = FROM + HOURS * 3_600_000;
const STEP = 100;

const dir = mkdtempSync(join(tmpdir(), 'racewire-day-'));
const file = join(dir, 'racewire.db');
const wall = Date.now();
const { clock, logger, sim, client, limiter, idle } = await simulatedUpstream({
  seed: SEED,
  day: DAY,
  from: FROM,
  rpm: 100,
});
const db = openDatabase(file);
const log = createSqliteEventLog({ db, window: 5000 });

const outcomes = { changed: 0, unchanged: 0, rejected: 0 };
const role = createPollingRole({
  source: client,
  log,
  bus: createMemoryBus(),
  clock,
  logger,
  subscribers: () => new Map(),
  discoveryIntervalMs: 6_000,
  onOutcome: (o) => {
    outcomes[o.kind]++;
  },
});
const cpu0 = process.cpuUsage();
await role.start();
while (clock.now() < TO) {
  await idle();
  await clock.advance(STEP);
}
const skipped = role.unchangedSkip()?.counts().skipped ?? 0;
limiter.close();
await role.stop();
const cpu = process.cpuUsage(cpu0);
await sim.close();

const size = (path: string) => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
const pageSize = db.pragma('page_size', { simple: true }) as number;
const pages = db.pragma('page_count', { simple: true }) as number;
const free = db.pragma('freelist_count', { simple: true }) as number;
const streams = (await log.streams()).length;
const before = { db: size(file), wal: size(`${file}-wal`) };
db.pragma('wal_checkpoint(TRUNCATE)');
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
// A payload whose bytes matched the last one taken is answered before parsing (unchanged-skip.ts) and never
// reaches the pipeline: it is unchanged too.
const payloads = outcomes.changed + outcomes.unchanged + outcomes.rejected + skipped;
const unchanged = outcomes.unchanged + skipped;
console.log(`store day: ${HOURS} h from ${new Date(FROM).toISOString()}, seed ${SEED}, ${streams} streams`);
console.log(
  `/events payloads ${payloads}: changed ${outcomes.changed}, unchanged ${unchanged} (${((unchanged / payloads) * 100).toFixed(1)} %; ${skipped} skipped before parsing), rejected ${outcomes.rejected}`,
);
console.log(
  `process CPU (simulator, client, pipeline, store): ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s`,
);
console.log(
  `on disk: file ${mb(before.db)} + WAL ${mb(before.wal)} = ${mb(before.db + before.wal)}; pages in use ${mb((pages - free) * pageSize)}; after checkpoint ${mb(size(file))}`,
);
// A day later: the feed consumed, the default retention (24 h settled, 7 days forgotten) applied.
const fed = await log.feed.read(FEED_START, Number.MAX_SAFE_INTEGER);
if (fed.length > 0) await log.feed.trim(fed.at(-1)!.position);
const expired = await log.expire(
  retentionPolicy(TO + 24 * 3_600_000 + 1, { EVENT_LOG_SETTLED_HOURS: 24, EVENT_LOG_RETAIN_DAYS: 7 }),
);
const inUse = () =>
  ((db.pragma('page_count', { simple: true }) as number) -
    (db.pragma('freelist_count', { simple: true }) as number)) *
  pageSize;
console.log(
  `a day later, feed trimmed and retention applied (${expired.settled} settled, ${expired.forgotten} forgotten): pages in use ${mb(inUse())}, file ${mb(size(file))}`,
);
console.log(`wall ${((Date.now() - wall) / 1000).toFixed(0)} s`);
await log.close();
db.close();
rmSync(dir, { recursive: true, force: true });
