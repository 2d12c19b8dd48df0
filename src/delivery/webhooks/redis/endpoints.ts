/**
 * Endpoints in Redis: the endpoint half of the Redis outbox (the `webhook_endpoints` table's counterpart,
 * sqlite/endpoints.ts). Changes that touch deliveries too (re-enabling, disabling, deleting, pausing) are
 * scripts in scripts.ts.
 */
import type { Redis } from 'ioredis';
import { RedisStoreError, redisCall } from '../../../store/redis/errors.js';
import type { Outbox } from '../ports.js';
import { openSecrets, type SecretCodec } from '../secret-codec.js';
import { newEndpointFields, patchedFields } from '../sqlite/endpoints.js';
import type { EndpointPatch, EndpointWithSecrets, NewEndpoint } from '../sqlite/rows.js';
import {
  deleteEndpointScript,
  disableScript,
  healthScript,
  pauseScript,
  rotateScript,
  updateEndpointScript,
} from './endpoint-scripts.js';
import { ENDPOINT_FIELDS, endpointFromValues, type OutboxKeys, type OutboxScriptRunner } from './keys.js';

/** Runs a pipeline and answers its replies, rejecting with the first command error. */
export async function pipelineValues(
  what: string,
  pipeline: ReturnType<Redis['pipeline']>,
): Promise<unknown[]> {
  return redisCall(what, async () => {
    const out = await pipeline.exec();
    if (!out) throw new RedisStoreError('redis_unavailable', `${what}: pipeline aborted`);
    return out.map(([err, value]) => {
      if (err) throw err;
      return value;
    });
  });
}

export type RedisEndpoints = Pick<
  Outbox,
  | 'endpoint'
  | 'listEndpoints'
  | 'createEndpoint'
  | 'updateEndpoint'
  | 'deleteEndpoint'
  | 'rotateSecret'
  | 'disableEndpoint'
  | 'pauseEndpoint'
  | 'markEndpointHealth'
  | 'endpointHealth'
> & {
  /** The endpoints and the version they were read at (the feed refuses to write if it moved). */
  enabledEndpoints(): Promise<{ version: string; endpoints: EndpointWithSecrets[] }>;
};

export function createRedisEndpoints(
  redis: Redis,
  keys: OutboxKeys,
  now: () => number,
  secrets: SecretCodec,
  /** Runs an outbox script (the outbox's, which first upgrades the key layout once). */
  run: OutboxScriptRunner,
): RedisEndpoints {
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
        .hset(keys.endpoint(e.id), {
          ...newEndpointFields(e, secrets),
          paused_until: 0,
          created_at: at,
          updated_at: at,
        })
        .zadd(keys.endpoints, at, e.id)
        .incr(keys.endpointsVersion);
      await pipelineValues(`create endpoint ${e.id}`, tx);
      return (await endpoint(e.id)) as EndpointWithSecrets;
    },

    async updateEndpoint(id: string, patch: EndpointPatch) {
      const fields = patchedFields(patch).flat();
      const flags = [patch.enabled ? '1' : '0', patch.enabled === undefined ? '0' : '1'];
      const found = await run(`update endpoint ${id}`, updateEndpointScript, [
        id,
        now(),
        ...flags,
        ...fields,
      ]);
      return found === 1 ? endpoint(id) : undefined;
    },

    deleteEndpoint: async (id) => (await run(`delete endpoint ${id}`, deleteEndpointScript, [id])) === 1,

    async rotateSecret(id, secret, overlapMs) {
      const at = now();
      const sealed = secrets.seal(id, secret);
      const found = await run(`rotate secret of ${id}`, rotateScript, [id, sealed, at + overlapMs, at]);
      return found === 1 ? endpoint(id) : undefined;
    },

    async disableEndpoint(id, reason) {
      await run(`disable endpoint ${id}`, disableScript, [id, reason, now()]);
    },

    async pauseEndpoint(id, until) {
      await run(`pause endpoint ${id}`, pauseScript, [id, until]);
    },

    async markEndpointHealth(id, failed, at) {
      const since = await run(`health of ${id}`, healthScript, [id, failed ? '1' : '0', at]);
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
