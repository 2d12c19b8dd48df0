/**
 * The nemesis, short: one minute of faults on three nodes (the long run is `npm run nemesis -- --minutes N`,
 * recorded in docs/benchmarks.md). Its schedule comes from a fixed seed, so a failure replays with
 * `npm run nemesis -- --minutes 1 --seed S`; RACEWIRE_NEMESIS_SEED tries another.
 */
import { expect, it } from 'vitest';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import { runNemesis } from './nemesis/run.js';

const seed = Number(process.env.RACEWIRE_NEMESIS_SEED ?? 108609);

describeWithRedis('the nemesis, one minute', () => {
  it('holds every invariant under kills, pauses, Redis restarts and bus drops', async () => {
    requireRedisServer();
    const lines: string[] = [`seed ${seed}`];
    // The production lease, whose local validity stops a paused leader before the fence is needed; `npm run
    // nemesis` sets the knob so that it is exercised.
    const result = await runNemesis({ minutes: 1, seed, unsafeTrustMs: 0, log: (line) => lines.push(line) });
    const failed = result.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
    expect(failed, lines.join('\n')).toEqual([]);
    expect(result.passed).toBe(result.checks.length);
  }, 900_000);
});
