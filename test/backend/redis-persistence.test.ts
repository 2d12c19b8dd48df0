/**
 * Issue 27: a Redis that keeps nothing across its restart stops the start (RW_REDIS_VOLATILE) unless
 * REDIS_ALLOW_VOLATILE=true; one that refuses CONFIG (a managed Redis) is warned about and the start goes
 * on. Each case runs on a redis-server of the test's own, configured as the case needs (never the shared one).
 */
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisBackend } from '../../src/backend/redis.js';
import {
  findPersistence,
  judgePersistence,
  RedisVolatileError,
  requirePersistence,
} from '../../src/backend/redis-persistence.js';
import { createManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { describeStartupFailure } from '../../src/startup-failure.js';
import { freePort } from '../cluster/cluster-harness.js';
import { type OwnRedis, startOwnRedis } from '../cluster/nemesis/redis-server.js';
import { captureLogs } from '../support/log-capture.js';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';

describe('judgePersistence', () => {
  it.each([
    ['yes', '', 'persistent'],
    ['no', '3600 1 300 100', 'persistent'],
    ['yes', '3600 1', 'persistent'],
    ['no', '', 'volatile'],
    ['no', '  ', 'volatile'],
    ['YES', '', 'persistent'],
  ] as const)('appendonly %j, save %j: %s', (appendonly, save, verdict) => {
    expect(judgePersistence(appendonly, save)).toBe(verdict);
  });
});

describe('the start-up line for a volatile Redis', () => {
  it('names the setting and the fix, and no URL', () => {
    const config = loadConfig({ STORE: 'redis', REDIS_URL: 'redis://:hunter2@10.0.0.5:6379' });
    const failure = describeStartupFailure(new RedisVolatileError({ appendonly: 'no', save: '' }), config);
    expect(failure).toEqual({
      exitCode: 1,
      lines: [
        'the Redis of REDIS_URL keeps nothing across its restart (appendonly no, save ""), so a restart of it would lose every webhook endpoint and its secret. Fix: turn persistence on in Redis (appendonly yes, or a save schedule), or set REDIS_ALLOW_VOLATILE=true to accept that loss',
      ],
    });
  });
});

describeWithRedis('Redis persistence at start', () => {
  const servers: Record<'volatile' | 'persistent' | 'noConfig', OwnRedis | undefined> = {
    volatile: undefined,
    persistent: undefined,
    noConfig: undefined,
  };
  const clients: Redis[] = [];
  const client = (own: OwnRedis | undefined) => {
    const redis = new Redis(own!.url, { maxRetriesPerRequest: 1 });
    clients.push(redis);
    return redis;
  };

  beforeAll(async () => {
    requireRedisServer();
    servers.volatile = await startOwnRedis(await freePort(), ['--appendonly', 'no', '--save', '']);
    servers.persistent = await startOwnRedis(await freePort());
    // What a managed Redis answers: CONFIG is not a command it takes.
    servers.noConfig = await startOwnRedis(await freePort(), [
      '--appendonly',
      'no',
      '--rename-command',
      'CONFIG',
      '',
    ]);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) c.disconnect();
    for (const own of Object.values(servers)) await own?.close();
  });

  it('finds what each server says', async () => {
    expect(await findPersistence(client(servers.volatile))).toEqual({
      kind: 'volatile',
      appendonly: 'no',
      save: '',
    });
    expect(await findPersistence(client(servers.persistent))).toEqual({
      kind: 'persistent',
      appendonly: 'yes',
      save: '',
    });
    // The reply's wording varies with the Redis version; its start does not.
    const refused = await findPersistence(client(servers.noConfig));
    expect(refused.kind).toBe('unchecked');
    expect(refused.kind === 'unchecked' && refused.reason).toMatch(/^ERR unknown command [`']config[`']/i);
  });

  it('refuses a volatile Redis with a coded error, unless allowed', async () => {
    const { logger } = captureLogs();
    const refused = await requirePersistence(client(servers.volatile), false, logger).catch((e) => e);
    expect(refused).toBeInstanceOf(RedisVolatileError);
    expect(refused.code).toBe('RW_REDIS_VOLATILE');
    expect(await requirePersistence(client(servers.volatile), true, logger)).toBeUndefined();
  });

  it('warns about a Redis that refuses CONFIG, with a code, and goes on', async () => {
    const { logger, lines } = captureLogs();
    const found = await requirePersistence(client(servers.noConfig), false, logger);
    expect(found?.kind).toBe('unchecked');
    expect(lines.map((l) => [l.level, l.code])).toEqual([[40, 'RW_REDIS_PERSISTENCE_UNCHECKED']]);
  });

  const backendOn = (own: Pick<OwnRedis, 'url'>, env: Record<string, string> = {}) =>
    redisBackend({
      config: loadConfig({
        STORE: 'redis',
        REDIS_URL: own.url,
        REDIS_PREFIX: `rw-persistence-${Math.random().toString(36).slice(2)}:`,
        ...env,
      }),
      clock: createManualClock(Date.parse('2026-11-26T10:00:00Z')),
      wallClock: createManualClock(Date.parse('2026-11-26T10:00:00Z')),
      logger: pino({ level: 'silent' }),
    });

  it('stops the Redis backend from starting on a volatile Redis, and lets it start when allowed or persistent', async () => {
    await expect(backendOn(servers.volatile!)).rejects.toMatchObject({ code: 'RW_REDIS_VOLATILE' });
    for (const [own, env] of [
      [servers.volatile!, { REDIS_ALLOW_VOLATILE: 'true' }],
      [servers.persistent!, {}],
      [servers.noConfig!, {}],
    ] as const) {
      const backend = await backendOn(own, env);
      expect(backend.driver).toBe('redis');
      await backend.close();
    }
  }, 30_000);

  it('fails the start as "Redis did not answer" when Redis is away, unless volatile is allowed', async () => {
    const away = { url: `redis://127.0.0.1:${await freePort()}` };
    const err = await backendOn(away).catch((e) => e);
    const config = loadConfig({ STORE: 'redis', REDIS_URL: away.url });
    expect(describeStartupFailure(err, config).lines[0]).toMatch(
      new RegExp(`^REDIS_URL=${away.url}: Redis did not answer \\(.+\\)\\. Fix: start Redis`),
    );
    const backend = await backendOn(away, { REDIS_ALLOW_VOLATILE: 'true' });
    expect(backend.status().redisUp).toBe(false);
    await backend.close();
  }, 30_000);
});
