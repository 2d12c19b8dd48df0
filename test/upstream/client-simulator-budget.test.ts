/**
 * The budget against a simulator enforcing its own limit, in virtual time: a manual clock shared by both, and
 * requests sent through fastify's inject (no sockets), so a simulated minute takes milliseconds.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator } from '../../src/simulator/index.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import { type ResponseMeta, responseMeta } from '../../src/upstream/response-meta.js';

const DAY = '2026-11-22';

async function setup(opts: { ours: number; theirs: number }) {
  const origin = Date.parse(`${DAY}T02:00:00Z`);
  const clock = createManualClock(origin);
  const sim = await createSimulator({ seed: 3, clock, day: DAY, rateLimit: { perMinute: opts.theirs } });
  const sent: number[] = [];
  const { fetch, idle } = createInProcessFetch(sim, () => sent.push(clock.now()));
  const seen: ResponseMeta[] = [];
  const limiter = createRateLimiter({ maxPerMinute: opts.ours, clock, burst: opts.ours });
  const client = createRacingClient({
    baseUrl: 'http://sim/affiliates/v1/racing',
    limiter,
    clock,
    fetch,
    random: () => 0.5,
    retry: { maxAttempts: 10 },
    onResponse: (m) => seen.push(m),
  });
  /** Moves virtual time in 1 s steps, letting in-flight requests finish before each step. */
  const run = async <T>(work: Promise<T>, maxMs: number): Promise<T> => {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    for (let t = 0; t <= maxMs && !settled; t += 1_000) {
      await idle();
      await clock.advance(1_000);
    }
    return done;
  };
  // Discovery itself spends a request, before the clock is read for the budget.
  const day = await run(client.meetings({ dateFrom: DAY, dateTo: DAY }), 60_000);
  const raceIds = day.data.meetings.flatMap((m) => m.races.map((r) => r.id));
  sent.length = 0;
  seen.length = 0;
  return { origin, clock, sim, client, limiter, run, sent, seen, raceIds };
}

describe('the budget against the simulator', () => {
  it('never draws a 429 when our limit sits at the server’s', async () => {
    const { sim, client, run, sent, seen, raceIds, origin } = await setup({ ours: 10, theirs: 10 });
    const ids = raceIds.slice(0, 25);
    const results = await run(Promise.all(ids.map((id) => client.event(id))), 300_000);
    expect(results.map((r) => r.data.race.event_id)).toEqual(ids);
    expect(seen.every((m) => m.status === 200)).toBe(true);
    expect(seen).toHaveLength(25);
    // Discovery started at origin; the events were asked for 1 s later. Each start waits for the start
    // 60 s before it to leave the window; once the window has been full, the bucket refills by one start
    // only (no burst the moment it frees, which would come back as a gap a minute later), so from the third
    // minute starts are paced at the budget, one every 6 s.
    const offsets = sent.map((t) => t - origin);
    const expected = [
      ...Array(8).fill(1_000),
      ...Array(2).fill(60_000),
      ...Array(8).fill(61_000),
      ...[120, 126, 132, 138, 144, 150, 156].map((s) => s * 1_000),
    ];
    expect(offsets).toEqual(expected);
    await sim.close();
  });

  it('recovers from the server’s 429s through Retry-After when our limit is set too high', async () => {
    const { sim, client, limiter, run, seen, raceIds } = await setup({ ours: 20, theirs: 10 });
    const ids = raceIds.slice(0, 15);
    const results = await run(Promise.all(ids.map((id) => client.event(id))), 600_000);
    expect(results.map((r) => r.data.race.event_id)).toEqual(ids);
    const statuses = seen.map((m) => m.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(15);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(0);
    expect(results.some((r) => (responseMeta(r)?.attempts ?? 0) > 1)).toBe(true);
    expect(limiter.stats().queued).toBe(0);
    await sim.close();
  });
});
