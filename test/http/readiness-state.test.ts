import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import type { ReadinessCheck } from '../../src/http/readiness-state.js';
import { trackReadiness } from '../../src/http/readiness-state.js';

describe('readiness kept in the background', () => {
  it('answers the last run at once, and fails a check that does not answer within its deadline', async () => {
    const wall = createManualClock();
    let redis: ReadinessCheck['check'] = () => ({ ok: true });
    let runs = 0;
    const state = trackReadiness({
      checks: () => {
        runs++;
        return [
          { name: 'budget', check: () => ({ ok: true }) },
          { name: 'redis', check: () => redis() },
          {
            name: 'store',
            check: () => {
              throw new Error('SQLITE_FULL');
            },
          },
        ];
      },
      wall,
      intervalMs: 1000,
      checkDeadlineMs: 400,
    });
    expect(await state.current()).toEqual({
      ok: false,
      checks: { budget: { ok: true }, redis: { ok: true }, store: { ok: false, detail: 'SQLITE_FULL' } },
    });

    redis = () => new Promise(() => {}); // Redis paused
    await wall.advance(1000); // the next run starts, and waits on Redis
    expect(runs).toBe(2);
    // Meanwhile a request answers the last finished run, without waiting.
    expect((await state.current()).checks.redis).toEqual({ ok: true });
    await wall.advance(400);
    expect((await state.current()).checks.redis).toEqual({ ok: false, detail: 'no answer within 400 ms' });

    redis = async () => ({ ok: true, detail: { node: 'n1' } });
    await wall.advance(1000);
    expect((await state.current()).checks.redis).toEqual({ ok: true, detail: { node: 'n1' } });
    await state.stop();
    expect(wall.pending()).toBe(0);
  });
});
