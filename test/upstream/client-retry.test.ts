/** Retry timing, on a manual clock with an injected fetch (no network), so waits are asserted exactly. */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { RateLimitedError, ServerError } from '../../src/upstream/errors.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import { responseMeta } from '../../src/upstream/response-meta.js';
import type { FetchLike } from '../../src/upstream/transport.js';
import { oneMeeting } from './stub-server.js';

type Reply = { status: number; body: unknown; headers?: Record<string, string> };

/** A fetch that answers with `replies` in turn (the last repeats) and records when each call started. */
function scriptedFetch(clock: { now(): number }, replies: Reply[]) {
  const calls: number[] = [];
  const fetch: FetchLike = async () => {
    const reply = replies[Math.min(calls.length, replies.length - 1)] as Reply;
    calls.push(clock.now());
    return new Response(JSON.stringify(reply.body), { status: reply.status, headers: reply.headers });
  };
  return { fetch, calls };
}

const ok: Reply = { status: 200, body: oneMeeting() };
const fail500: Reply = { status: 500, body: { error: 'internal', message: 'boom' } };

function setup(
  replies: Reply[],
  opts: { maxPerMinute?: number; random?: () => number; maxAttempts?: number } = {},
) {
  const clock = createManualClock(0);
  const limiter = createRateLimiter({
    maxPerMinute: opts.maxPerMinute ?? 100,
    clock,
    burst: opts.maxPerMinute ?? 100,
  });
  const { fetch, calls } = scriptedFetch(clock, replies);
  const client = createRacingClient({
    baseUrl: 'http://upstream.test/affiliates/v1/racing',
    limiter,
    clock,
    fetch,
    random: opts.random ?? (() => 0.5),
    retry: { maxAttempts: opts.maxAttempts ?? 4 },
  });
  return { clock, limiter, client, calls };
}

describe('racing client retries', () => {
  it('waits Retry-After after a 429, pausing the limiter, then succeeds', async () => {
    const { clock, limiter, client, calls } = setup([
      { status: 429, body: { error: 'rate_limited', retry_after: 99 }, headers: { 'retry-after': '30' } },
      ok,
    ]);
    const result = client.meeting('race-1');
    await clock.advance(0);
    expect(limiter.stats().pausedUntil).toBe(30_000);
    await clock.advance(29_999);
    expect(calls).toEqual([0]);
    await clock.advance(1);
    const res = await result;
    expect(calls).toEqual([0, 30_000]);
    expect(responseMeta(res)).toMatchObject({ status: 200, attempts: 2 });
  });

  it('holds other requests during the 429 pause too', async () => {
    const { clock, client, calls } = setup([
      { status: 429, body: { error: 'rate_limited' }, headers: { 'retry-after': '10' } },
      ok,
    ]);
    const first = client.meeting('a');
    await clock.advance(0);
    const second = client.meeting('b');
    await clock.advance(10_000);
    await Promise.all([first, second]);
    expect(calls).toEqual([0, 10_000, 10_000]);
  });

  it('takes the wait from the body retry_after when the header is absent', async () => {
    const { clock, client, calls } = setup([
      { status: 429, body: { error: 'rate_limited', retry_after: 12 } },
      ok,
    ]);
    const result = client.meeting('r');
    await clock.advance(12_000);
    await result;
    expect(calls).toEqual([0, 12_000]);
  });

  it('falls back to the default wait when a 429 says nothing', async () => {
    const { clock, client, calls } = setup([{ status: 429, body: { error: 'rate_limited' } }, ok]);
    const result = client.meeting('r');
    await clock.advance(5_000);
    await result;
    expect(calls).toEqual([0, 5_000]);
  });

  it('gives up on 429 after maxAttempts with RateLimitedError', async () => {
    const { clock, client, calls } = setup(
      [{ status: 429, body: { error: 'rate_limited', retry_after: 1 } }],
      {
        maxAttempts: 2,
      },
    );
    const result = client.meeting('r').catch((e: unknown) => e);
    await clock.advance(5_000);
    const err = await result;
    expect(err).toBeInstanceOf(RateLimitedError);
    expect(err).toMatchObject({ retryAfterMs: 1_000, meta: { attempts: 2, status: 429 } });
    expect(calls).toEqual([0, 1_000]);
  });

  it('backs off with growing jittered delays on 5xx and stops at maxAttempts', async () => {
    const { clock, client, calls } = setup([fail500], { random: () => 0.5 });
    const result = client.meeting('r').catch((e: unknown) => e);
    await clock.advance(60_000);
    const err = await result;
    expect(err).toBeInstanceOf(ServerError);
    // Delays 0.5 * min(30 000, 500 * 2^n): 250, 500, 1 000.
    expect(calls).toEqual([0, 250, 750, 1_750]);
  });

  it('draws each back-off from the injected random source, capped', async () => {
    const draws = [0.999, 0.1, 1 - 1e-9];
    const { clock, client, calls } = setup([fail500], { random: () => draws.shift() ?? 0 });
    const result = client.meeting('r').catch(() => {});
    await clock.advance(60_000);
    await result;
    expect(calls).toEqual([0, 499, 599, 2_598]);
  });

  it('spends budget on retries: a retry waits for a slot like any request', async () => {
    const { clock, client, calls } = setup([fail500, fail500, ok], { maxPerMinute: 2, random: () => 0 });
    const result = client.meeting('r');
    await clock.advance(60_000);
    await result;
    expect(calls).toEqual([0, 0, 60_000]);
  });

  it('does not retry a 404', async () => {
    const { clock, client, calls } = setup([{ status: 404, body: { error: 'not_found', message: 'x' } }]);
    const result = client.meeting('r').catch((e: unknown) => e);
    await clock.advance(10_000);
    expect(await result).toMatchObject({ code: 'UPSTREAM_NOT_FOUND' });
    expect(calls).toEqual([0]);
  });

  it('slows down when the server says its remaining budget is low', async () => {
    const low = { 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '2', 'x-ratelimit-reset': '20' };
    const { clock, client, calls } = setup([{ ...ok, headers: low }]);
    await client.meeting('a');
    const rest = [client.meeting('b'), client.meeting('c')];
    await clock.advance(30_000);
    await Promise.all(rest);
    expect(calls).toEqual([0, 10_000, 20_000]);
  });
});
