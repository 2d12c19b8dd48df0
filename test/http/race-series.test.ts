/**
 * The number of race-labelled series on /metrics follows the races live now, not the races seen: through a
 * simulated day of 748 races (each fetched from 2 hours before its start, Final 15 minutes after it), the
 * staleness gauge holds exactly the live races (fetched, unfinished, within the hour before their start or
 * past it) at every scrape, and none once the day is done.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock } from '../../src/clock.js';
import { bindMetricSources } from '../../src/http/metric-sources.js';
import { createMetrics } from '../../src/http/metrics.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';
import { watchedRace } from '../support/race-watch.js';

const DAY_START = Date.parse('2026-11-26T00:00:00Z');
const MIN = 60_000;
const RACES = 748;
// Starts spread over 12 hours of racing from 01:00.
const startOf = (i: number) => DAY_START + 60 * MIN + Math.floor((i * 12 * 60 * MIN) / RACES);

async function raceSeries(metrics: ReturnType<typeof createMetrics>): Promise<number> {
  const text = await metrics.registry.metrics();
  return text.split('\n').filter((line) => line.startsWith('racewire_race_staleness_seconds{')).length;
}

describe('race-labelled metric series', () => {
  it('exist only for live races, through a simulated day and after it', async () => {
    const clock = createManualClock(DAY_START);
    const races = new Map<string, RaceWatch>();
    const metrics = createMetrics();
    bindMetricSources(metrics, {
      bus: createMemoryBus(),
      clock,
      discovery: () => undefined,
      wall: createManualClock(DAY_START),
      budget: () => ({ used: 0, left: 100, queued: 0 }),
      view: () => ({
        races: () => races,
        staleness: (id) => {
          const at = races.get(id)?.lastGoodAt;
          return at === undefined ? undefined : clock.now() - at;
        },
        lastDiscoveryAt: () => clock.now(),
        listedDays: () => [],
      }),
      outboxDepth: async () => 0,
    });
    let most = 0;
    for (let t = DAY_START; t <= DAY_START + 24 * 60 * MIN; t += 10 * MIN) {
      await clock.advance(t - clock.now());
      let live = 0;
      for (let i = 0; i < RACES; i++) {
        const raceId = `R${i}`;
        const start = startOf(i);
        const fetched = t >= start - 120 * MIN;
        const finished = t >= start + 15 * MIN;
        races.set(
          raceId,
          watchedRace({
            raceId,
            startTime: start,
            discoveredAt: DAY_START,
            status: finished ? 'Final' : 'Open',
            ...(fetched ? { lastFetchAt: t, lastGoodAt: t - 1_000 } : {}),
            ...(finished ? { finishedAt: start + 15 * MIN } : {}),
          }),
        );
        if (fetched && !finished && t >= start - 60 * MIN) live++;
      }
      const series = await raceSeries(metrics);
      expect(series).toBe(live);
      most = Math.max(most, series);
    }
    // At most 1 h 15 min of the day's races at once (about 78 of 748), and none when the day is over.
    expect(most).toBeLessThanOrEqual(Math.ceil((75 * RACES) / (12 * 60)) + 1);
    expect(await raceSeries(metrics)).toBe(0);
  });
});
