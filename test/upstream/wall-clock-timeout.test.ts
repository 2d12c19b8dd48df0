/**
 * Issue 25: waits the provider sees run on the wall clock. With race time at x1000 (a scaled clock over the
 * manual wall clock), the upstream timeout is still 10 real seconds and the back-off between attempts real
 * milliseconds; on the race clock the timeout fired after 10 real milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock, createScaledClock } from '../../src/clock.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { TimeoutError } from '../../src/upstream/errors.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { FetchLike } from '../../src/upstream/transport.js';

function setup() {
  const wall = createManualClock(Date.parse('2026-11-26T10:00:00Z'));
  const race = createScaledClock({ origin: wall.now(), speed: 1000, real: wall });
  const attempts: number[] = [];
  // Every attempt hangs until it is aborted, as a provider that never answers.
  const fetch: FetchLike = (_url, init) =>
    new Promise((_resolve, reject) => {
      attempts.push(wall.now());
      init.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
    });
  const client = createRacingClient({
    baseUrl: 'http://upstream.test/affiliates/v1/racing',
    limiter: createRateLimiter({ maxPerMinute: 100, clock: race }),
    clock: race,
    wallClock: wall,
    fetch,
    timeoutMs: 10_000,
    random: () => 0.5,
    retry: { maxAttempts: 2, baseMs: 500 },
  });
  return { wall, client, attempts };
}

describe('upstream waits at x1000 race time', () => {
  it('times an attempt out after 10 real seconds, and backs off in real time', async () => {
    const { wall, client, attempts } = setup();
    const outcome = client.meeting('m1').then(
      () => 'answered',
      (err: unknown) => err,
    );
    await wall.advance(9_999);
    expect(attempts).toHaveLength(1); // ten thousand race seconds later, the first attempt still waits
    await wall.advance(1);
    // Timed out at 10 s; the retry waits half the first back-off ceiling (500 ms, jitter 0.5): 250 real ms.
    await wall.advance(249);
    expect(attempts).toHaveLength(1);
    await wall.advance(1);
    expect(attempts.map((at) => at - attempts[0]!)).toEqual([0, 10_250]);
    await wall.advance(10_000);
    const err = await outcome;
    expect(err).toBeInstanceOf(TimeoutError);
    expect((err as TimeoutError).message).toContain('10000 ms');
  });
});
