/**
 * Redis for tests. A suite that needs Redis runs when REDIS_URL is set (as `.ci/run` sets it) and then fails,
 * never skips, when Redis cannot be reached or a tool it needs is missing. Without REDIS_URL it is skipped
 * under a name that says so.
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';

export function describeWithRedis(name: string, body: (url: string) => void): void {
  const url = process.env.REDIS_URL;
  if (!url) {
    describe.skip(name, () => {
      it('needs REDIS_URL (for example redis://127.0.0.1:6379)', () => {});
    });
    return;
  }
  describe(name, () => {
    beforeAll(async () => {
      const probe = new Redis(url, { maxRetriesPerRequest: 0, lazyConnect: true, connectTimeout: 2_000 });
      try {
        await probe.connect();
        await probe.ping();
      } catch (err) {
        throw new Error(`REDIS_URL is set but Redis does not answer: ${(err as Error).message}`);
      } finally {
        probe.disconnect();
      }
    });
    body(url);
  });
}

/** The redis-server binary, for suites that start their own server (to kill it); throws when missing. */
export function requireRedisServer(): void {
  try {
    execFileSync('redis-server', ['--version']);
  } catch {
    throw new Error('REDIS_URL is set, so this suite runs, but redis-server is not on PATH');
  }
}

/** A client and a key prefix of the calling suite's own: its keys are deleted and the client quit after it. */
export function suiteRedis(url: string): { redis: Redis; runPrefix: string } {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const runPrefix = `racewire-test:${randomUUID()}:`;
  afterAll(async () => {
    const stale = await redis.keys(`${runPrefix}*`);
    if (stale.length > 0) await redis.del(...stale);
    await redis.quit();
  });
  return { redis, runPrefix };
}
