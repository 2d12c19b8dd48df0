/**
 * The Redis endpoints: one hash per endpoint and the set of them by creation time. Changes that also touch
 * what the endpoint is owed (re-enabling, disabling, deleting) or its health are scripts (scripts.ts).
 */
import type { Redis } from 'ioredis';
import { redisCall } from '../../../redis/errors.js';
import type { EndpointWithSecrets, NewEndpoint } from '../model.js';
import type { WebhookEndpoints } from '../ports.js';
import { openSecrets, type SecretCodec } from '../secret-codec.js';
import { ENDPOINT_FIELDS, endpointFromValues, newEndpointHash, patchedHashFields } from './hashes.js';
import { type OutboxKeys, type OutboxScriptRunner, pipelineValues } from './keys.js';
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
    read(await redisCall(`endpoint ${id}`, () => redis.hmget(keys.endpoint(id), ...ENDPOINT_FIELDS)));

  const listEndpoints = async (): Promise<EndpointWithSecrets[]> => {
    const ids = await redisCall('endpoints', () => redis.zrange(keys.endpoints, 0, -1));
    const p = redis.pipeline();
    for (const id of ids) p.hmget(keys.endpoint(id), ...ENDPOINT_FIELDS);
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

    async createEndpoint(e: NewEndpoint) {
      const at = now();
      const tx = redis
        .multi()
        .hset(keys.endpoint(e.id), newEndpointHash(e, secrets, at))
        .zadd(keys.endpoints, at, e.id)
        .incr(keys.endpointsVersion);
      await pipelineValues(`create endpoint ${e.id}`, tx);
      return (await endpoint(e.id)) as EndpointWithSecrets;
    },

    async updateEndpoint(id, patch) {
      const flags = [patch.enabled ? '1' : '0', patch.enabled === undefined ? '0' : '1'];
      const args = [id, now(), ...flags, ...patchedHashFields(patch)];
      const found = await run(`update endpoint ${id}`, updateEndpointScript, args);
      return found === 1 ? endpoint(id) : undefined;
    },

    deleteEndpoint: async (id) => (await run(`delete endpoint ${id}`, deleteEndpointScript, [id])) === 1,

    async rotateSecret(id, secret, overlapMs) {
      const at = now();
      const sealed = secrets.seal(id, secret);
      const found = await run(
        `rotate secret of ${id}`,
        rotateScript,
        [sealed, at + overlapMs, at],
        [keys.endpoint(id)],
      );
      return found === 1 ? endpoint(id) : undefined;
    },

    async disableEndpoint(id, reason) {
      await run(`disable endpoint ${id}`, disableScript, [id, reason, now()]);
    },

    async markEndpointHealth(id, failed, at) {
      const since = await run(`health of ${id}`, healthScript, [failed ? '1' : '0', at], [keys.endpoint(id)]);
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
