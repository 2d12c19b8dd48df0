/**
 * Feeds the Redis outbox from the shared log (multi-node mode has no append transaction to join): the Redis
 * event log XADDs every event entry to `<prefix>feed` (field `e`, the LogEntry as JSON) in its append
 * script, and this reader enqueues what each entry owes after the cursor `<prefix>webhooks:feed-cursor`.
 * Enqueueing and moving the cursor are one script that first checks the cursor and the endpoints are still
 * those it read, so a crash or a second reader never loses nor duplicates a delivery; (endpoint, event id)
 * is also enqueued at most once. Run it on the node that dispatches (the poller lease).
 */
import type { Redis } from 'ioredis';
import type { Clock } from '../../clock.js';
import type { LogEntry } from '../../events/envelope.js';
import type { Logger } from '../../logger.js';
import { redisCall } from '../../store/redis/errors.js';
import { planDeliveries } from './enqueue-plan.js';
import { formatBody } from './formatters/index.js';
import type { BodyFormatter } from './outbox-rows.js';
import type { RedisOutbox } from './redis-outbox.js';
import { outboxKeys, runScript } from './redis-outbox-keys.js';
import { feedScript } from './redis-outbox-lua.js';
import { createWakeLoop } from './wake-loop.js';

export interface RedisFeederDeps {
  redis: Redis;
  prefix: string;
  outbox: Pick<RedisOutbox, 'enabledEndpoints'>;
  clock: Clock;
  logger: Logger;
  /** How often to look at the feed when nothing kicks. */
  pollIntervalMs: number;
  /** @default formatBody */
  format?: BodyFormatter;
  /** Feed entries per step. @default 100 */
  batch?: number;
  /** Called after deliveries were enqueued (to wake the dispatcher). */
  onEnqueued?: () => void;
}

/** One step: `stale` when the cursor or the endpoints moved meanwhile (nothing written; read again). */
export type FeedResult = { read: number; enqueued: number } | 'stale';

export function createRedisFeeder(deps: RedisFeederDeps) {
  const { redis, clock, logger } = deps;
  const keys = outboxKeys(deps.prefix);
  const format = deps.format ?? formatBody;
  const batch = deps.batch ?? 100;

  const parse = ([id, fields]: [string, string[]]): LogEntry[] => {
    try {
      return [JSON.parse(fields[fields.indexOf('e') + 1] ?? '') as LogEntry];
    } catch (err) {
      // Never block the feed behind an entry that can never be read.
      logger.error({ err, feedId: id }, 'webhook feed entry is not a log entry; skipped');
      return [];
    }
  };

  /** Enqueues what the next batch of feed entries owes and moves the cursor past it, atomically. */
  async function feedOnce(): Promise<FeedResult> {
    const cursor = (await redisCall('feed cursor', () => redis.get(keys.feedCursor))) ?? '0-0';
    const { version, endpoints } = await deps.outbox.enabledEndpoints();
    const rows = await redisCall('read feed', () =>
      redis.xrange(keys.feed, `(${cursor}`, '+', 'COUNT', batch),
    );
    const last = rows[rows.length - 1];
    if (!last) return { read: 0, enqueued: 0 };
    const planned = planDeliveries(rows.flatMap(parse), endpoints, format);
    const args = [cursor, last[0], version, clock.now(), keys.feed];
    for (const p of planned)
      args.push(p.endpointId, p.event.id, p.event.type, p.event.stream, String(p.event.seq), p.body);
    const reply = (await runScript(redis, keys, 'enqueue from feed', feedScript, args)) as [string, number?];
    if (reply[0] === 'stale') return 'stale';
    return { read: rows.length, enqueued: reply[1] ?? 0 };
  }

  const loop = createWakeLoop(clock, async () => {
    try {
      const r = await feedOnce();
      if (r === 'stale') return 0;
      if (r.enqueued > 0) deps.onEnqueued?.();
      return r.read === batch ? 0 : deps.pollIntervalMs;
    } catch (err) {
      logger.error({ err }, 'webhook feed could not be read');
      return deps.pollIntervalMs;
    }
  });

  return { feedOnce, start: loop.start, stop: loop.stop, kick: loop.kick };
}

export type RedisFeeder = ReturnType<typeof createRedisFeeder>;
