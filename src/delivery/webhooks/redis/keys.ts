/**
 * Keys of the Redis outbox, all under `<prefix>webhooks:` (the layout is described in scripts.ts,
 * whose scripts build the same names), and the mapping of its hashes to the outbox's public types through
 * the SQLite row mappers, so both backends answer identical objects.
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../store/redis/errors.js';
import type { RedisScript } from '../../../store/redis/script.js';
import { type Delivery, type EndpointWithSecrets, type Row, toDelivery, toEndpoint } from '../sqlite/rows.js';

export function outboxKeys(prefix: string) {
  const w = `${prefix}webhooks:`;
  return {
    /** The prefix every script takes as ARGV[1]. */
    w,
    delivery: (id: number | string) => `${w}d:${id}`,
    attempts: (id: number | string) => `${w}d:${id}:attempts`,
    endpoint: (id: string) => `${w}ep:${id}`,
    endpointDeliveries: (id: string) => `${w}ep:${id}:deliveries`,
    endpoints: `${w}endpoints`,
    endpointsVersion: `${w}endpoints-version`,
    counts: `${w}counts`,
    due: `${w}due`,
    feedCursor: `${w}feed-cursor`,
  };
}

export type OutboxKeys = ReturnType<typeof outboxKeys>;

export type OutboxScriptRunner = (
  what: string,
  script: RedisScript,
  args: Array<string | number>,
) => Promise<unknown>;

/** Runs an outbox script with the prefix as ARGV[1]; a Redis failure rejects with `redis_unavailable`. */
export const runScript = (
  redis: Redis,
  keys: OutboxKeys,
  what: string,
  script: RedisScript,
  args: Array<string | number>,
): Promise<unknown> => redisCall(what, () => script.run(redis, [], [keys.w, ...args]));

const toRow = (
  fields: readonly string[],
  values: readonly (string | null)[],
  numeric: ReadonlySet<string>,
) => {
  const row: Row = {};
  fields.forEach((f, i) => {
    const v = values[i] ?? null;
    row[f] = v !== null && numeric.has(f) ? Number(v) : v;
  });
  return row;
};

export const ENDPOINT_FIELDS = [
  'id',
  'url',
  'kind',
  'description',
  'event_types',
  'filters',
  'enabled',
  'disabled_reason',
  'failing_since',
  'paused_until',
  'secret',
  'previous_secret',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
] as const;
const ENDPOINT_NUMERIC = new Set([
  'enabled',
  'failing_since',
  'paused_until',
  'previous_secret_expires_at',
  'created_at',
  'updated_at',
]);

/** Every column but the body, which only the sender reads. */
export const DELIVERY_FIELDS = [
  'id',
  'endpoint_id',
  'event_id',
  'event_type',
  'stream',
  'seq',
  'status',
  'attempts',
  'next_attempt_at',
  'created_at',
  'updated_at',
  'last_status_code',
  'last_error',
  'replay_of',
] as const;
const DELIVERY_NUMERIC = new Set([
  'id',
  'seq',
  'attempts',
  'next_attempt_at',
  'created_at',
  'updated_at',
  'last_status_code',
  'replay_of',
]);

/** From `HMGET ENDPOINT_FIELDS`; undefined when the endpoint does not exist. */
export const endpointFromValues = (values: readonly (string | null)[]): EndpointWithSecrets | undefined =>
  values[0] === null || values[0] === undefined
    ? undefined
    : toEndpoint(toRow(ENDPOINT_FIELDS, values, ENDPOINT_NUMERIC));

/** From `HMGET DELIVERY_FIELDS`; undefined when the delivery does not exist. */
export const deliveryFromValues = (values: readonly (string | null)[]): Delivery | undefined =>
  values[0] === null || values[0] === undefined
    ? undefined
    : toDelivery(toRow(DELIVERY_FIELDS, values, DELIVERY_NUMERIC));
