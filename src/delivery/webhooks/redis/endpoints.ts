/**
 * The Redis endpoints: one hash per endpoint (under its hash tag) and the shared list of them by creation
 * time. Changes are per-endpoint scripts (scripts.ts); the shared list, id index and endpoints version are
 * then updated by the caller in separate calls, each safe to repeat: a version moved after the change makes
 * a feed batch planned before it stale (moved twice, it only makes one plan again).
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import type { EndpointWithSecrets, NewEndpoint } from '../model.js';
import type { WebhookEndpoints } from '../ports.js';
import { openSecrets, type SecretCodec } from '../secret-codec.js';
import { ENDPOINT_FIELDS, endpointFromValues, newEndpointHash, patchedHashFields } from './hashes.js';
import { endpointIds } from './history.js';
import { type OutboxKeys, type OutboxScriptRunner, onEndpoint, pipelineValues } from './keys.js';
import {
  deleteEndpointScript,
  disableScript,
  healthScript,
  rotateScript,
  updateEndpointScript,
} from './scripts.js';

export function createRedisEndpoints(
  redis: Redis,
  keys: OutboxKeys,
  now: () => number,
  secrets: SecretCodec,
  /** Runs an outbox script (the outbox's, which first upgrades the key layout once). */
  run: OutboxScriptRunner,
): WebhookEndpoints {
  const read = (values: readonly (string | null)[]) => {
    const e = endpointFromValues(values);
    return e && openSecrets(secrets, e);
  };
  const endpoint = async (id: string) =>
    read(
      await redisCall(`endpoint ${id}`, () => redis.hmget(keys.endpoint(id).endpoint, ...ENDPOINT_FIELDS)),
    );
  const on = (id: string) => onEndpoint(run, keys, id);
  /** After a change of which endpoints want what (never before it: a plan read in between would pass). */
  const moveVersion = () => redisCall('endpoints version', () => redis.incr(keys.endpointsVersion));

  const listEndpoints = async (): Promise<EndpointWithSecrets[]> => {
    const ids = await endpointIds(redis, keys);
    const p = redis.pipeline();
    for (const id of ids) p.hmget(keys.endpoint(id).endpoint, ...ENDPOINT_FIELDS);
    const rows = await pipelineValues('endpoints', p);
    return rows.flatMap((values) => read(values as (string | null)[]) ?? []);
  };

  return {
    endpoint,
    listEndpoints,

    async enabledEndpoints() {
      // The version first: a change after it is read shows as a newer version when the feed writes.
      const version = (await redisCall('endpoints version', () => redis.get(keys.endpointsVersion))) ?? '0';
      return { version, endpoints: (await listEndpoints()).filter((e) => e.enabled) };
    },

    /** The hash, then the shared list, then the version: Cluster runs no transaction across tags. A crash
     * in between leaves an endpoint not listed yet, which nothing dispatches to. */
    async createEndpoint(e: NewEndpoint) {
      const at = now();
      await redisCall(`create endpoint ${e.id}`, () =>
        redis.hset(keys.endpoint(e.id).endpoint, newEndpointHash(e, secrets, at)),
      );
      await redisCall(`list endpoint ${e.id}`, () => redis.zadd(keys.endpoints, at, e.id));
      await moveVersion();
      return (await endpoint(e.id)) as EndpointWithSecrets;
    },

    async updateEndpoint(id, patch) {
      const args = [now(), patch.enabled ? '1' : '0', ...patchedHashFields(patch)];
      const found = await on(id)(`update endpoint ${id}`, updateEndpointScript, args);
      if (found !== 1) return undefined;
      await moveVersion();
      return endpoint(id);
    },

    /** The endpoint's keys in one script, then its entries in the shared list and id index (read before). */
    async deleteEndpoint(id) {
      const ids = await redisCall(`deliveries of ${id}`, () => redis.zrange(keys.endpoint(id).byId, 0, -1));
      if ((await on(id)(`delete endpoint ${id}`, deleteEndpointScript, [])) !== 1) return false;
      await redisCall(`unlist endpoint ${id}`, () => redis.zrem(keys.endpoints, id));
      if (ids.length > 0)
        await redisCall(`unindex deliveries of ${id}`, () => redis.hdel(keys.deliveryEndpoints, ...ids));
      await moveVersion();
      return true;
    },

    async rotateSecret(id, secret, overlapMs) {
      const at = now();
      const sealed = secrets.seal(id, secret);
      const found = await on(id)(`rotate secret of ${id}`, rotateScript, [sealed, at + overlapMs, at]);
      return found === 1 ? endpoint(id) : undefined;
    },

    async disableEndpoint(id, reason) {
      if ((await on(id)(`disable endpoint ${id}`, disableScript, [reason, now()])) === 1) await moveVersion();
    },

    async markEndpointHealth(id, failed, at) {
      const since = await on(id)(`health of ${id}`, healthScript, [failed ? '1' : '0', at]);
      return typeof since === 'string' ? Number(since) : null;
    },

    async endpointHealth() {
      const all = await listEndpoints();
      return {
        failing: all.filter((e) => e.enabled && e.failingSince !== null).length,
        disabled: all.filter((e) => !e.enabled).length,
      };
    },
  };
}
