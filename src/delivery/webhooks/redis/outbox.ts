/**
 * The Redis adapter's factory: the queue, endpoints and history in Redis, shared by every node (multi-node
 * mode), behind the same ports and contract suites as SQLite. The client is the caller's and is never quit.
 */
import type { Redis } from 'ioredis';
import type { Outbox } from '../ports.js';
import { plainSecrets, type SecretCodec } from '../secret-codec.js';
import { createRedisEndpoints } from './endpoints.js';
import { createRedisHistory } from './history.js';
import { type OutboxScriptRunner, outboxKeys, runScript } from './keys.js';
import { createRedisQueue } from './queue.js';
import { migrateClaimsScript } from './scripts.js';

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
  // Keys written before the claim index existed are upgraded once, before this node's first script; a
  // failed attempt (Redis away) is retried by the next call.
  let migrated: Promise<unknown> | undefined;
  const migrate = () => {
    migrated ??= runScript(redis, keys, 'upgrade the claim index', migrateClaimsScript, []).catch((err) => {
      migrated = undefined;
      throw err;
    });
    return migrated;
  };
  const run: OutboxScriptRunner = async (what, script, args, declared) => {
    await migrate();
    return runScript(redis, keys, what, script, args, declared);
  };
  return {
    queue: createRedisQueue(redis, keys, now, opts.fenceKey ?? `${opts.prefix}fence`, run),
    endpoints: createRedisEndpoints(redis, keys, now, opts.secrets ?? plainSecrets, run),
    history: createRedisHistory(redis, keys, run),
  };
}
