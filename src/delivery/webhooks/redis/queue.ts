/**
 * The Redis queue: deliveries owed and in flight. Each state change of one endpoint is one Lua script on its
 * own keys (scripts.ts), atomic on the server and runnable by Redis Cluster; what also touches a shared key
 * (the feed cursor, id and claim counters, the fence mark) is a short sequence of calls, each safe to repeat.
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import { FEED_START } from '../../../store/ports.js';
import type { PlannedDelivery } from '../dispatch/enqueue-plan.js';
import { RESPONSE_BODY_LIMIT } from '../model.js';
import type { WebhookQueue } from '../ports.js';
import { byEndpoint } from './by-endpoint.js';
import { claimDue, wakeTimes } from './claim.js';
import { attemptToJson } from './hashes.js';
import { endpointIds, endpointOf, readDeliveries } from './history.js';
import { insertWithIds } from './insert.js';
import { type OutboxKeys, type OutboxScriptRunner, onEndpoint } from './keys.js';
import {
  enqueueScript,
  feedCursorScript,
  pauseScript,
  recordScript,
  recoverScript,
  replayScript,
} from './scripts.js';

const RECOVER_BATCH = 500;
const REPLAY_BATCH = 100;

const deliveryArgs = (ps: readonly PlannedDelivery[]) =>
  ps.flatMap((p) => [p.event.id, p.event.type, p.event.stream, p.event.seq, p.body]);

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the queue port over Redis: its methods share the client, the keys and the scripts, and each is short
export function createRedisQueue(
  redis: Redis,
  keys: OutboxKeys,
  now: () => number,
  /** The fence mark claims are checked against (the lease's token counter). */
  fenceKey: string,
  run: OutboxScriptRunner,
): WebhookQueue {
  const cursorKeys = [keys.feedCursor, keys.endpointsVersion];
  const inserted = async (ep: string, ids: string[] | 'gone') =>
    ids === 'gone' || ids.length === 0 ? undefined : (await readDeliveries(redis, keys, ep, ids))[0];
  /** Replays these deliveries of `ep` in order; answers the new ids. */
  const replayOf = (ep: string, ids: readonly string[], at: number) =>
    insertWithIds(redis, keys, run, ep, ids.length, `replay for ${ep}`, replayScript, {
      before: [at],
      after: ids as string[],
    });

  return {
    feedCursor: async () => (await redisCall('feed cursor', () => redis.get(keys.feedCursor))) ?? FEED_START,

    /**
     * Check the cursor and the endpoints version; insert endpoint by endpoint (each skipping what it already
     * holds, through `:events`); move the cursor if both are still as planned. A crash or a lost race between
     * the steps leaves deliveries the next read of the same batch finds already enqueued, never a gap.
     */
    async enqueueFromFeed(step) {
      const planned = [step.from, step.endpointsVersion];
      if ((await run('check the feed cursor', feedCursorScript, cursorKeys, [...planned, ''])) === 'stale')
        return 'stale';
      const at = now();
      let enqueued = 0;
      for (const [ep, owed] of byEndpoint(step.deliveries, (p) => p.endpointId)) {
        const ids = await insertWithIds(
          redis,
          keys,
          run,
          ep,
          owed.length,
          'enqueue from feed',
          enqueueScript,
          {
            before: [at, 'feed'],
            after: deliveryArgs(owed),
          },
        );
        if (ids !== 'gone') enqueued += ids.length;
      }
      const moved = await run('move the feed cursor', feedCursorScript, cursorKeys, [...planned, step.to]);
      return moved === 'stale' ? 'stale' : { enqueued };
    },

    async enqueue(p) {
      const ids = await insertWithIds(
        redis,
        keys,
        run,
        p.endpointId,
        1,
        `enqueue for ${p.endpointId}`,
        enqueueScript,
        {
          before: [now(), 'one'],
          after: deliveryArgs([p]),
        },
      );
      return inserted(p.endpointId, ids);
    },

    async replay(deliveryId) {
      const ep = await endpointOf(redis, keys, deliveryId);
      return ep === undefined ? undefined : inserted(ep, await replayOf(ep, [String(deliveryId)], now()));
    },

    /** The endpoint's originals in [from, to], read a page at a time and replayed in id order. */
    async replayRange(endpointId, from, to) {
      const ids = await redisCall(`replay range of ${endpointId}`, () =>
        redis.zrangebyscore(keys.endpoint(endpointId).originals, from, to),
      );
      ids.sort((a, b) => Number(a) - Number(b));
      const at = now();
      let n = 0;
      for (let i = 0; i < ids.length; i += REPLAY_BATCH) {
        const made = await replayOf(endpointId, ids.slice(i, i + REPLAY_BATCH), at);
        if (made !== 'gone') n += made.length;
      }
      return n;
    },

    claimDue: (at, limit, o) => claimDue(redis, keys, run, fenceKey, at, limit, o),

    async recordAttempt(d, a, next) {
      const id = await redisCall('attempt id', () => redis.incr(keys.attemptIds));
      const row = attemptToJson({
        id,
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
      const args = [
        d.id,
        d.claim,
        row,
        next.status,
        next.nextAttemptAt,
        a.at,
        a.statusCode ?? '',
        a.error ?? '',
      ];
      return (
        (await onEndpoint(run, keys, d.endpointId)(`record attempt of ${d.id}`, recordScript, args)) === 1
      );
    },

    async recoverInFlight(which) {
      let total = 0;
      if (!('claimedBefore' in which)) {
        const eps = await redisCall('endpoints of claims', () =>
          which.length === 0
            ? Promise.resolve([])
            : redis.hmget(keys.deliveryEndpoints, ...which.map((c) => String(c.id))),
        );
        const held = byEndpoint(
          which.flatMap((c, i) => (eps[i] ? [{ ep: eps[i], c }] : [])),
          (h) => h.ep,
        );
        for (const [ep, claims] of held) {
          const pairs = claims.flatMap(({ c }) => [c.id, c.claim]);
          total += (await onEndpoint(run, keys, ep)('recover held claims', recoverScript, [
            'claims',
            ...pairs,
          ])) as number;
        }
        return total;
      }
      // Endpoint by endpoint, in batches, each script bounded (ZRANGEBYSCORE ... LIMIT), until one comes back short.
      for (const ep of await endpointIds(redis, keys)) {
        for (;;) {
          const args = ['before', which.claimedBefore, RECOVER_BATCH];
          const n = (await onEndpoint(run, keys, ep)(
            'recover expired claims',
            recoverScript,
            args,
          )) as number;
          total += n;
          if (n < RECOVER_BATCH) break;
        }
      }
      return total;
    },

    async pauseEndpoint(id, until) {
      await onEndpoint(run, keys, id)(`pause endpoint ${id}`, pauseScript, [until]);
    },

    wakeTimes: () => wakeTimes(redis, keys),
  };
}
