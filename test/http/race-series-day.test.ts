/**
 * The race-labelled series on /metrics through a simulated race day and into the next, with the real poller,
 * discovery, client and limiter over the embedded simulator's world on a manual clock (payloads are not built:
 * each fetch reports the race's status in the world at that instant, as the pipeline would). At every scrape
 * the staleness gauge names exactly the live races (fetched, not yet seen Final or Abandoned, within the hour
 * before their start or past it) of the ~1,500 the two-day window lists; a race that settled has no series
 * from the next scrape on; and the count stays within the races around their start, on the second racing day
 * as on the first (no growth with the races seen).
 */
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock } from '../../src/clock.js';
import { bindMetricSources, LIVE_HORIZON_MS } from '../../src/http/metric-sources.js';
import { createMetrics } from '../../src/http/metrics.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator } from '../../src/simulator/index.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { createPoller } from '../../src/watch/fetch/poller.js';
import { FINISHED_STATUSES } from '../../src/watch/track/race-watch.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
/** The racing day of 2026-11-20 runs from about 22:00 UTC the day before to 17:02 UTC. */
const FROM = Date.parse('2026-11-19T20:00:00Z');
const TO = Date.parse('2026-11-21T17:30:00Z');
const SECOND_DAY = Date.parse('2026-11-20T19:00:00Z');
/** A small budget and rare discovery keep two days fast to simulate; the law does not depend on the rates. */
const PER_MINUTE = 4;

async function seriesLabels(metrics: ReturnType<typeof createMetrics>): Promise<string[]> {
  const text = await metrics.registry.metrics();
  return text
    .split('\n')
    .filter((line) => line.startsWith('racewire_race_staleness_seconds{'))
    .map((line) => /race_id="([^"]+)"/.exec(line)![1]!)
    .sort();
}

describe('race-labelled metric series over a simulated race day', () => {
  it('name exactly the live races at every scrape, drop a race once Final or Abandoned, and stay a few dozen on either day', async () => {
    const clock = createManualClock(FROM);
    const sim = await createSimulator({ seed: 7, clock, day: '2026-11-20', rateLimit: false });
    const limiter = createRateLimiter({ maxPerMinute: PER_MINUTE, clock });
    const client = createRacingClient({
      baseUrl: 'http://sim.test/affiliates/v1/racing',
      limiter,
      clock,
      fetch: createInProcessFetch(sim).fetch,
    });
    const poller = createPoller({
      source: {
        meetings: (q, ro) => client.meetings(q, ro),
        event: (_raceId, opts) =>
          limiter.schedule(async () => ({}) as EventResponse, {
            priority: opts?.priority,
            signal: opts?.signal,
          }),
      },
      onEvent: async (raceId) => {
        const { status } = sim.world.summaryAt(raceId);
        return { kind: 'changed', status, dividends: FINISHED_STATUSES.has(status) ? 'final' : 'none' };
      },
      clock,
      logger: pino({ level: 'silent' }),
      subscribers: () => new Map(),
      discoveryIntervalMs: 10 * MIN,
    });
    const metrics = createMetrics();
    bindMetricSources(metrics, {
      bus: createMemoryBus(),
      clock,
      discovery: () => undefined,
      wall: clock,
      budget: () => ({ used: 0, left: PER_MINUTE, queued: 0 }),
      view: () => poller,
      outboxDepth: async () => 0,
    });

    poller.start();
    const mostByDay = [0, 0];
    const settledSeen = new Set<string>();
    let previous = new Set<string>();
    let mostListed = 0;
    for (let t = FROM + 10 * MIN; t <= TO; t += 10 * MIN) {
      await clock.advance(t - clock.now());
      const labels = await seriesLabels(metrics);
      const races = [...poller.races().values()];
      mostListed = Math.max(mostListed, races.length);
      const expected = races
        .filter((r) => r.lastGoodAt !== undefined && r.finishedAt === undefined)
        .filter((r) => r.startTime <= t + LIVE_HORIZON_MS)
        .map((r) => r.raceId)
        .sort();
      expect(labels).toEqual(expected);
      // Only races around their start: none more than an hour ahead, none started more than 3 hours ago.
      const around = races.filter((r) => r.startTime >= t - 3 * HOUR && r.startTime <= t + HOUR).length;
      expect(labels.length).toBeLessThanOrEqual(around);
      const day = t < SECOND_DAY ? 0 : 1;
      mostByDay[day] = Math.max(mostByDay[day]!, labels.length);
      // A race that had a series and is now Final or Abandoned has none from this scrape on, nor later.
      for (const raceId of previous) {
        const race = poller.races().get(raceId);
        if (race?.finishedAt !== undefined) settledSeen.add(raceId);
      }
      // One assertion over all of them: one `expect` per settled race per scrape (~50,000) was 4 s of CPU.
      expect(labels.filter((raceId) => settledSeen.has(raceId))).toEqual([]);
      previous = new Set(labels);
    }
    limiter.close();
    await poller.stop();
    await sim.close();

    // Races did go from live to settled under the scrapes, hundreds of them over two days, while the window
    // listed well over a thousand races; series at any scrape: a few dozen on either day.
    console.log(
      `race series: most ${mostByDay.join(' / ')} a day; ${settledSeen.size} settled; listed ${mostListed}`,
    );
    expect(settledSeen.size).toBeGreaterThan(300);
    expect(mostListed).toBeGreaterThan(1000);
    for (const most of mostByDay) {
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(100);
    }
  }, 600_000);
});
