/**
 * The Redis adapter's factory: the queue, endpoints and history in Redis, shared by every node (multi-node
 * mode), behind the same ports and contract suites as SQLite. The client is the caller's and is never quit.
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import type { Outbox } from '../ports.js';
import { plainSecrets, type SecretCodec } from '../secret-codec.js';
import { createRedisEndpoints } from './endpoints.js';
import { createRedisHistory } from './history.js';
import { type OutboxScriptRunner, outboxKeys } from './keys.js';
import { createRedisQueue } from './queue.js';
import { upgradeOutboxLayout } from './upgrade.js';

export interface RedisOutboxOptions {
  redis: Redis;
  /** Prefix of every key (keys are `<prefix>webhooks:...`). */
  prefix: string;
  /** Time of created/updated stamps. @default Date.now */
  now?: () => number;
  /** The fence mark claims are checked against: the lease's token counter (`RedisLease.tokenKey`), shared
   * with the event log. @default `<prefix>fence` */
  fenceKey?: string;
  /** How endpoint secrets are stored (SECRETS_KEY). @default plainSecrets */
  secrets?: SecretCodec;
}

export function createRedisOutbox(opts: RedisOutboxOptions): Outbox {
  const { redis } = opts;
  const now = opts.now ?? Date.now;
  const keys = outboxKeys(opts.prefix);
  // An older key layout is upgraded once (upgrade.ts), before this node's first call of any port; a failed
  // attempt (Redis away, another node upgrading) is retried by the next call.
  let upgraded: Promise<unknown> | undefined;
  const upgrade = () => {
    upgraded ??= upgradeOutboxLayout(redis, keys).catch((err) => {
      upgraded = undefined;
      throw err;
    });
    return upgraded;
  };
  const run: OutboxScriptRunner = (what, script, scriptKeys, args) =>
    redisCall(what, () => script.run(redis, scriptKeys, args));
  return {
    queue: afterUpgrade(
      createRedisQueue(redis, keys, now, opts.fenceKey ?? `${opts.prefix}fence`, run),
      upgrade,
    ),
    endpoints: afterUpgrade(
      createRedisEndpoints(redis, keys, now, opts.secrets ?? plainSecrets, run),
      upgrade,
    ),
    history: afterUpgrade(createRedisHistory(redis, keys, run), upgrade),
  };
}

/** The port with each method first awaiting `upgrade`. */
function afterUpgrade<T extends object>(port: T, upgrade: () => Promise<unknown>): T {
  const methods = Object.entries(port).map(([name, method]) => [
    name,
    async (...args: unknown[]) => {
      await upgrade();
      return (method as (...a: unknown[]) => unknown)(...args);
    },
  ]);
  return Object.fromEntries(methods) as T;
}
