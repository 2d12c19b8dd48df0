/**
 * The Redis queue: deliveries owed and in flight, each state change one Lua script (scripts.ts) so that it
 * is atomic on the server, shared by every node.
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import { FEED_START } from '../../../store/ports.js';
import { RESPONSE_BODY_LIMIT } from '../model.js';
import type { WebhookQueue } from '../ports.js';
import { attemptToJson } from './hashes.js';
import { readDeliveries } from './history.js';
import type { OutboxKeys, OutboxScriptRunner } from './keys.js';
import {
  claimScript,
  enqueueOneScript,
  feedScript,
  oldestClaimScript,
  pauseScript,
  recordScript,
  recoverScript,
  replayRangeScript,
  replayScript,
} from './scripts.js';

const RECOVER_BATCH = 500;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the queue port over Redis: its methods share the client, the keys and the scripts, and each is short
export function createRedisQueue(
  redis: Redis,
  keys: OutboxKeys,
  now: () => number,
  /** The fence mark claims are checked against (the lease's token counter). */
  fenceKey: string,
  run: OutboxScriptRunner,
): WebhookQueue {
  const deliveries = (ids: readonly (number | string)[]) => readDeliveries(redis, keys, ids);
  const inserted = async (id: unknown) =>
    typeof id === 'number' && id > 0 ? (await deliveries([id]))[0] : undefined;

  return {
    feedCursor: async () => (await redisCall('feed cursor', () => redis.get(keys.feedCursor))) ?? FEED_START,

    async enqueueFromFeed(step) {
      const args: Array<string | number> = [step.from, step.to, step.endpointsVersion, now()];
      for (const p of step.deliveries)
        args.push(p.endpointId, p.event.id, p.event.type, p.event.stream, p.event.seq, p.body);
      const reply = (await run('enqueue from feed', feedScript, args)) as [string, number?];
      return reply[0] === 'stale' ? 'stale' : { enqueued: reply[1] ?? 0 };
    },

    async enqueue({ endpointId, event, body }) {
      const args = [endpointId, event.id, event.type, event.stream, event.seq, body, now()];
      return inserted(await run(`enqueue for ${endpointId}`, enqueueOneScript, args));
    },

    replay: async (deliveryId) =>
      inserted(await run(`replay ${deliveryId}`, replayScript, [deliveryId, now()])),

    replayRange: async (endpointId, from, to) =>
      (await run(`replay range of ${endpointId}`, replayRangeScript, [
        endpointId,
        from,
        to,
        now(),
      ])) as number,

    async claimDue(at, limit, o) {
      const pausedUntil = at + o.chatMinIntervalMs;
      const args = [at, limit, pausedUntil, o.perEndpoint, limit * 4 + 32, o.fence ?? '', fenceKey];
      const [status, ...pairs] = (await run('claim due deliveries', claimScript, args)) as string[];
      if (status === 'fenced') return 'fenced';
      const claims = new Map<number, number>();
      for (let i = 0; i < pairs.length; i += 2) claims.set(Number(pairs[i]), Number(pairs[i + 1]));
      const fence = o.fence ?? null;
      return (await deliveries([...claims.keys()])).map((d) => ({ ...d, claim: claims.get(d.id)!, fence }));
    },

    async recordAttempt(d, a, next) {
      const row = attemptToJson({
        deliveryId: d.id,
        attemptNo: d.attempts + 1,
        at: a.at,
        statusCode: a.statusCode ?? null,
        latencyMs: Math.round(a.latencyMs),
        error: a.error ?? null,
        responseBody: a.responseBody.slice(0, RESPONSE_BODY_LIMIT),
        outcome: a.outcome,
        claim: d.claim,
        fence: d.fence,
      });
      const applied = await run(`record attempt of ${d.id}`, recordScript, [
        d.id,
        d.claim,
        row,
        next.status,
        next.nextAttemptAt,
        a.at,
        a.statusCode ?? '',
        a.error ?? '',
      ]);
      return applied === 1;
    },

    async recoverInFlight(which) {
      if (!('claimedBefore' in which)) {
        const pairs = which.flatMap((c) => [c.id, c.claim]);
        return (await run('recover held claims', recoverScript, ['claims', ...pairs])) as number;
      }
      // In batches, each script bounded (ZRANGEBYSCORE ... LIMIT), until a batch comes back short.
      let total = 0;
      for (;;) {
        const args = ['before', which.claimedBefore, RECOVER_BATCH];
        const n = (await run('recover expired claims', recoverScript, args)) as number;
        total += n;
        if (n < RECOVER_BATCH) return total;
      }
    },

    async pauseEndpoint(id, until) {
      await run(`pause endpoint ${id}`, pauseScript, [id, until]);
    },

    async wakeTimes() {
      const [[, score], oldest] = await Promise.all([
        redisCall('next due', () => redis.zrange(keys.due, 0, 0, 'WITHSCORES')),
        run('oldest claim', oldestClaimScript, [], [keys.claimed]) as Promise<string | null>,
      ]);
      return {
        nextDueAt: score === undefined ? null : Number(score),
        oldestClaimAt: oldest === null ? null : Number(oldest),
      };
    },
  };
}
