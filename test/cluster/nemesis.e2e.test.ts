/**
 * The nemesis, short: one minute of faults on three nodes (the long run is `npm run nemesis -- --minutes N`,
 * recorded in docs/benchmarks.md). Its seed is printed so a failing schedule can be replayed.
 */
import { expect, it } from 'vitest';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import { runNemesis } from './nemesis/run.js';

describeWithRedis('the nemesis, one minute', () => {
  it('holds every invariant under kills, pauses, Redis restarts and bus drops', async () => {
    requireRedisServer();
    const seed = Date.now() % 1_000_000;
    const lines: string[] = [`seed ${seed}`];
    const result = await runNemesis({ minutes: 1, seed, log: (line) => lines.push(line) });
    const failed = result.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
    expect(failed, lines.join('\n')).toEqual([]);
    expect(result.passed).toBe(result.checks.length);
  }, 900_000);
});
