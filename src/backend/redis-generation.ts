/**
 * Whether Redis still holds the data this node found in it: a Redis that restarted without persistence, was
 * flushed, or was swapped for another one (REDIS_URL moved, a fail-over to an empty replica) has lost the
 * webhook endpoints and their secrets, and nothing else would say so. A generation key (a hash: `id`,
 * `created_at`, and `restored_at` once an operator restored) is created by the first node that finds none;
 * each node remembers the id it first read and compares it on every readiness run (every second, in the
 * background). Missing (this node made the next one) or another id: the data is lost, and the node says so
 * (readiness `redis-data` fails with code RW_REDIS_DATA_LOST, `/v1/ops` and the metrics show it) until an
 * operator restores the endpoints (`PUT /v1/webhooks/endpoints:export`), which marks the current generation
 * restored for every node. A node that starts on an empty Redis cannot tell a new deployment from a wiped
 * one: it says which it found in its log, and the nodes already running shout.
 */

import { randomUUID } from 'node:crypto';
import type { DataLoss } from '@racewire/client/protocol';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { redisCall } from '../redis/errors.js';

/** A wire type of /v1/ops: the SDK declares it. */
export type { DataLoss };

export interface GenerationStatus {
  /** The generation this node trusts; null before Redis first answered. */
  id: string | null;
  /** Set from the loss until an operator restores. */
  lost: DataLoss | null;
  /** Losses this node noticed since it started. */
  losses: number;
}

export interface GenerationWatch {
  /** Reads the key (creating it when missing) and updates the status; rejects when Redis does not answer. */
  check(): Promise<GenerationStatus>;
  /** The status as the last check left it. */
  status(): GenerationStatus;
  /** An operator restored what the loss took: marks the current generation restored, for every node. */
  restored(): Promise<void>;
}

export function watchGeneration(opts: {
  redis: Redis;
  key: string;
  wall: Clock;
  logger: Logger;
  mint?: () => string;
}): GenerationWatch {
  const { redis, key, wall, logger } = opts;
  const mint = opts.mint ?? randomUUID;
  let id: string | null = null;
  let lost: DataLoss | null = null;
  let losses = 0;
  const status = (): GenerationStatus => ({ id, lost, losses });

  /** The current generation, made by this call when there was none (then `made` is true). */
  const current = async (restoredAt?: number) => {
    const mine = mint();
    const tx = redis.multi().hsetnx(key, 'id', mine).hsetnx(key, 'created_at', wall.now());
    if (restoredAt !== undefined) tx.hset(key, 'restored_at', restoredAt);
    const out = await redisCall('redis generation', async () => {
      const replies = await tx.hmget(key, 'id', 'restored_at').exec();
      if (!replies) throw new Error('transaction aborted');
      for (const [err] of replies) if (err) throw err;
      return replies.map(([, value]) => value);
    });
    // HMGET is the transaction's last command.
    const [found, restored] = out.at(-1) as [string, string | null];
    return { found, made: found === mine, restored: restored !== null };
  };

  const check = async () => {
    const { found, made, restored } = await current();
    if (id === null) {
      id = found;
      if (made)
        logger.warn(
          { generation: id },
          'Redis held no racewire generation: a new deployment, or a Redis that lost its data (then restore the webhook endpoints: docs/operations.md)',
        );
    } else if (found !== id && !lost) {
      lost = { code: 'RW_REDIS_DATA_LOST', reason: made ? 'wiped' : 'replaced', since: wall.now() };
      losses++;
      logger.error(
        { code: lost.code, reason: lost.reason, was: id, now: found },
        'Redis lost its data (restarted without persistence, flushed or replaced): webhook endpoints and their secrets are gone; restore them with PUT /v1/webhooks/endpoints:export (docs/operations.md)',
      );
    }
    if (lost && restored) {
      logger.info({ generation: found, was: id }, 'webhook endpoints restored after the Redis data loss');
      id = found;
      lost = null;
    }
    return status();
  };

  return {
    check,
    status,
    async restored() {
      await current(wall.now());
      await check();
    },
  };
}
