import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it, vi } from 'vitest';
import { freePort } from '../cluster/cluster-harness.js';
import { nodeArgs } from '../support/child-build.js';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import { redisAnswers } from '../support/redis-ping.js';

// Needs redis-server on PATH, as every suite that starts its own: run where REDIS_URL is set.
describeWithRedis("the soak's own redis-server", () => {
  beforeAll(requireRedisServer);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`stops the soak's redis-server when the soak is stopped by ${signal}`, async () => {
      const port = await freePort();
      const script = fileURLToPath(new URL('./soak-redis-child.ts', import.meta.url));
      const child = spawn(process.execPath, [...nodeArgs(script), String(port)], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const exited = once(child, 'exit');
      try {
        const [line] = (await once(child.stdout, 'data')) as [Buffer];
        const url = line.toString().trim();
        expect(url).toBe(`redis://127.0.0.1:${port}`);
        expect(await redisAnswers(url)).toBe(true);

        child.kill(signal);
        const [code] = (await exited) as [number | null];
        expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
        // The server was sent SIGTERM before the soak exited; it closes its port as it stops.
        await vi.waitFor(async () => expect(await redisAnswers(url)).toBe(false), {
          timeout: 10_000,
          interval: 50,
        });
      } finally {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    });
  }
});
