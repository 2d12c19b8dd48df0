/**
 * The scheduler through the real poller, client and limiter over the simulated world (the real jump: most
 * races go after their advertised start), on a manual clock: the budget is never exceeded yet all of it is
 * spent, and a race still Open after its advertised start keeps its near-jump share until it is Closed.
 * Payloads are not built: each fetch reports the race's status in the simulated world at that instant.
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator } from '../../src/simulator/index.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { createPoller } from '../../src/watch/fetch/poller.js';

const MIN = 60_000;
const FROM = Date.parse('2026-11-19T17:30:00Z');
const TO = FROM + 16 * MIN;

async function busyStretch() {
  const clock = createManualClock(FROM);
  const sim = await createSimulator({ seed: 5, clock, day: '2026-11-20', rateLimit: false });
  const starts: number[] = [];
  const fetches: { raceId: string; at: number }[] = [];
  const inProcess = createInProcessFetch(sim, () => starts.push(clock.now()));
  const limiter = createRateLimiter({ maxPerMinute: 100, clock });
  const client = createRacingClient({
    baseUrl: 'http://sim.test/affiliates/v1/racing',
    limiter,
    clock,
    fetch: inProcess.fetch,
  });
  const poller = createPoller({
    source: {
      meetings: (q, ro) => client.meetings(q, ro),
      event: (raceId, opts) =>
        limiter.schedule(
          async () => {
            starts.push(clock.now());
            fetches.push({ raceId, at: clock.now() });
            return {} as EventResponse;
          },
          { priority: opts?.priority, signal: opts?.signal },
        ),
    },
    onEvent: async (raceId) => ({ kind: 'changed', status: sim.world.summaryAt(raceId).status }),
    clock,
    logger: pino({ level: 'silent' }),
    subscribers: () => new Map(),
    discoveryIntervalMs: 6_000,
  });
  poller.start();
  while (clock.now() < TO) await clock.advance(500);
  limiter.close();
  await poller.stop();
  await sim.close();
  return { sim, starts, fetches };
}

describe('scheduler under the budget, over the simulated world', () => {
  it('never starts more than 100 requests in any 60 s, spends nearly all of them, and follows a late race to its jump', async () => {
    const { sim, starts, fetches } = await busyStretch();
    let max = 0;
    for (let lo = 0, hi = 0; hi < starts.length; hi++) {
      while (starts[hi]! - starts[lo]! >= MIN) lo++;
      max = Math.max(max, hi - lo + 1);
    }
    expect(max).toBeLessThanOrEqual(100);
    expect(starts.length).toBeGreaterThanOrEqual(1500);

    // Races that jumped at least 2 minutes late inside the stretch: fetched all the way from the advertised
    // start to the jump, never left for more than 30 s.
    const late = sim.world.races.filter((r) => {
      const life = sim.world.lifecycle(r.id);
      return life.start > FROM + 2 * MIN && life.closeAt < TO && life.closeAt - life.start >= 2 * MIN;
    });
    expect(late.length).toBeGreaterThan(0);
    for (const race of late) {
      const life = sim.world.lifecycle(race.id);
      const times = fetches.filter((f) => f.raceId === race.id).map((f) => f.at);
      const during = [life.start, ...times.filter((t) => t > life.start && t < life.closeAt), life.closeAt];
      const gaps = during.slice(1).map((t, i) => t - during[i]!);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(30_000);
    }
  }, 300_000);
});
