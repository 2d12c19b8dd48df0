/**
 * The outbox in Redis, shared by every node (multi-node mode): the same behaviour as the SQLite outbox
 * behind the same port, with each state change one Lua script (redis-outbox-lua.ts). The client is the
 * caller's and is never quit.
 */
import type { Redis } from 'ioredis';
import type { RaceEvent } from '../../events/envelope.js';
import { FEED_START } from '../../store/ports.js';
import { redisCall } from '../../store/redis/errors.js';
import { formatBody } from './formatters/index.js';
import type { Outbox } from './outbox-port.js';
import {
  type Attempt,
  type BodyFormatter,
  type Delivery,
  type DeliveryStatus,
  RESPONSE_BODY_LIMIT,
  type Row,
  toAttempt,
} from './outbox-rows.js';
import { createRedisEndpoints, pipelineValues } from './redis-endpoints.js';
import {
  DELIVERY_FIELDS,
  deliveryFromValues,
  type OutboxScriptRunner,
  outboxKeys,
  runScript,
} from './redis-outbox-keys.js';
import {
  claimScript,
  enqueueOneScript,
  feedScript,
  migrateClaimsScript,
  oldestClaimScript,
  pruneScript,
  recordScript,
  recoverScript,
  replayRangeScript,
  replayScript,
} from './redis-outbox-lua.js';
import { plainSecrets, type SecretCodec } from './secret-codec.js';

export interface RedisOutboxOptions {
  redis: Redis;
  /** Prefix of every key (keys are `<prefix>webhooks:...`). */
  prefix: string;
  /** @default formatBody */
  format?: BodyFormatter;
  /** Time of created/updated stamps. @default Date.now */
  now?: () => number;
  /** The fence mark claims are checked against: the lease's token counter (`RedisLease.tokenKey`), shared
   * with the event log. @default `<prefix>fence` */
  fenceKey?: string;
  /** How endpoint secrets are stored (SECRETS_KEY). @default plainSecrets */
  secrets?: SecretCodec;
}

const PRUNE_BATCH = 500;
const RECOVER_BATCH = 500;
const LIST_BATCH = 100;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: an adapter of the outbox port: its methods share the client and the scripts and each is short
export function createRedisOutbox(opts: RedisOutboxOptions): Outbox {
  const { redis } = opts;
  const format = opts.format ?? formatBody;
  const now = opts.now ?? Date.now;
  const keys = outboxKeys(opts.prefix);
  const fenceKey = opts.fenceKey ?? `${opts.prefix}fence`;
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
  const run: OutboxScriptRunner = async (what, script, args) => {
    await migrate();
    return runScript(redis, keys, what, script, args);
  };
  const endpoints = createRedisEndpoints(redis, keys, now, opts.secrets ?? plainSecrets, run);

  const deliveries = async (ids: readonly (number | string)[]): Promise<Delivery[]> => {
    if (ids.length === 0) return [];
    const p = redis.pipeline();
    for (const id of ids) p.hmget(keys.delivery(id), ...DELIVERY_FIELDS);
    const rows = await pipelineValues('deliveries', p);
    return rows.flatMap((values) => deliveryFromValues(values as (string | null)[]) ?? []);
  };
  const delivery = async (id: number) => (await deliveries([id]))[0];
  const inserted = async (id: unknown) => (typeof id === 'number' && id > 0 ? delivery(id) : undefined);

  return {
    ...endpoints,

    feedCursor: async () => (await redisCall('feed cursor', () => redis.get(keys.feedCursor))) ?? FEED_START,

    async enqueueFromFeed(step) {
      const args: Array<string | number> = [step.from, step.to, step.endpointsVersion, now()];
      for (const p of step.deliveries)
        args.push(p.endpointId, p.event.id, p.event.type, p.event.stream, p.event.seq, p.body);
      const reply = (await run('enqueue from feed', feedScript, args)) as [string, number?];
      return reply[0] === 'stale' ? 'stale' : { enqueued: reply[1] ?? 0 };
    },

    async enqueueOne(endpointId: string, event: RaceEvent) {
      const ep = await endpoints.endpoint(endpointId);
      const body = ep && format(ep.kind, event);
      if (!ep || body === undefined) return undefined;
      const args = [ep.id, event.id, event.type, event.stream, event.seq, body, now()];
      return inserted(await run(`enqueue for ${ep.id}`, enqueueOneScript, args));
    },

    async claimDue(at, limit, o) {
      const args = [
        at,
        limit,
        at + o.chatMinIntervalMs,
        o.perEndpoint,
        limit * 4 + 32,
        o.fence ?? '',
        fenceKey,
      ];
      const [status, ...pairs] = (await run('claim due deliveries', claimScript, args)) as string[];
      if (status === 'fenced') return 'fenced';
      const claims = new Map<number, number>();
      for (let i = 0; i < pairs.length; i += 2) claims.set(Number(pairs[i]), Number(pairs[i + 1]));
      const fence = o.fence ?? null;
      return (await deliveries([...claims.keys()])).map((d) => ({ ...d, claim: claims.get(d.id)!, fence }));
    },

    body: async (id) =>
      (await redisCall(`body of ${id}`, () => redis.hget(keys.delivery(id), 'body'))) ?? undefined,

    async recordAttempt(d, a, next) {
      const row = {
        delivery_id: d.id,
        attempt_no: d.attempts + 1,
        at: a.at,
        status_code: a.statusCode ?? null,
        latency_ms: Math.round(a.latencyMs),
        error: a.error ?? null,
        response_body: a.responseBody.slice(0, RESPONSE_BODY_LIMIT),
        outcome: a.outcome,
        claim: d.claim,
        fence: d.fence,
      };
      const applied = await run(`record attempt of ${d.id}`, recordScript, [
        d.id,
        d.claim,
        JSON.stringify(row),
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

    delivery,

    async listDeliveries(endpointId, q) {
      const out: Delivery[] = [];
      let max = q.beforeId === undefined ? '+inf' : `(${q.beforeId}`;
      // Newest first, filtered by status a page at a time.
      while (out.length < q.limit) {
        const key = keys.endpointDeliveries(endpointId);
        const ids = await redisCall('list deliveries', () =>
          redis.zrevrangebyscore(key, max, '-inf', 'LIMIT', 0, LIST_BATCH),
        );
        for (const d of await deliveries(ids)) {
          if (out.length < q.limit && (q.status === undefined || d.status === q.status)) out.push(d);
        }
        if (ids.length < LIST_BATCH) break;
        max = `(${ids[ids.length - 1]}`;
      }
      return out;
    },

    async attempts(deliveryId): Promise<Attempt[]> {
      const rows = await redisCall(`attempts of ${deliveryId}`, () =>
        redis.lrange(keys.attempts(deliveryId), 0, -1),
      );
      return rows.map((json) => toAttempt(JSON.parse(json) as Row));
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

    async prune(before) {
      let total = 0;
      for (;;) {
        const n = (await run('prune deliveries', pruneScript, [before, PRUNE_BATCH])) as number;
        total += n;
        if (n < PRUNE_BATCH) return total;
      }
    },

    async counts() {
      const raw = await redisCall('delivery counts', () => redis.hgetall(keys.counts));
      const out: Record<DeliveryStatus, number> = { pending: 0, in_flight: 0, delivered: 0, failed: 0 };
      for (const status of Object.keys(out) as DeliveryStatus[]) out[status] = Number(raw[status] ?? 0);
      return out;
    },

    async oldestClaimAt() {
      const at = (await run('oldest claim', oldestClaimScript, [])) as string | null;
      return at === null ? null : Number(at);
    },

    async nextDueAt() {
      const [, score] = await redisCall('next due', () => redis.zrange(keys.due, 0, 0, 'WITHSCORES'));
      return score === undefined ? null : Number(score);
    },
  };
}
