/**
 * The market detectors on simulated races, fetched as the service fetches them (the real client, every
 * market option on, in-process on a manual clock) from 20 minutes before the jump to after it: no
 * `market.big_bet`, `race.mover_changed` or `market.money_flow` names a runner the bet or record is not on.
 * Whatever structures the simulator serves (bets on other races, entrants outside the field), the same
 * laws hold as on the real shapes (detect-bets.test.ts, golden.test.ts).
 */
import type { BigBetData, DetectedRaceEvent } from '@racewire/client/protocol';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { createInProcessFetch } from '../../src/simulator/in-process-fetch.js';
import { createSimulator } from '../../src/simulator/index.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import { runnersOf } from '../../src/watch/detect/detect-context.js';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';
import { type RaceDocument, type RaceState, trackRace } from '../../src/watch/track/track-race.js';

const MINUTE = 60_000;
const MARKET_OPTIONS = {
  withBigBets: true,
  withLiveBets: true,
  withBiggestBet: true,
  withMoneyTracker: true,
};

/** Every big bet, mover and money flow of `races` polled every 2 minutes around the jump, with its document. */
async function simulatedMarketEvents(races: number) {
  const clock = createManualClock(Date.parse('2026-11-22T09:00:00Z'));
  const sim = await createSimulator({ seed: 5, clock, rateLimit: false });
  const client = createRacingClient({
    baseUrl: 'http://sim.test/affiliates/v1/racing',
    limiter: createRateLimiter({ maxPerMinute: 100_000, clock }),
    clock,
    fetch: createInProcessFetch(sim).fetch,
  });
  const picked = sim.world.meetings
    .flatMap((m) => m.races)
    .filter((r) => !r.abandoned && r.advertisedStart > clock.now() + 30 * MINUTE)
    .sort((a, b) => a.advertisedStart - b.advertisedStart)
    .slice(0, races);
  const out: { event: DetectedRaceEvent; doc: RaceDocument }[] = [];
  const state = new Map<string, RaceState | undefined>();
  const first = picked[0]!.advertisedStart - 20 * MINUTE;
  const last = picked.at(-1)!.advertisedStart + 10 * MINUTE;
  await clock.advance(first - clock.now());
  for (let now = first; now <= last; now += 2 * MINUTE) {
    for (const race of picked) {
      if (now < race.advertisedStart - 20 * MINUTE || now > race.advertisedStart + 10 * MINUTE) continue;
      const payload = await client.event(race.id, MARKET_OPTIONS);
      const result = trackRace(state.get(race.id), payload, clock.now(), {
        raceId: race.id,
        market: { thresholds: { ...DEFAULT_MARKET_THRESHOLDS, bigBetMinStake: 0 } },
      });
      state.set(race.id, result.state);
      const doc = result.state?.document;
      for (const e of result.entries) {
        if (e.kind === 'event' && doc) out.push({ event: e.event as DetectedRaceEvent, doc });
      }
    }
    await clock.advance(2 * MINUTE);
  }
  await sim.close();
  return out;
}

describe('market events on simulated races', () => {
  it('never name a runner the bet or record is not on', async () => {
    const seen = await simulatedMarketEvents(4);
    const counts = { bets: 0, runnersNamed: 0, movers: 0 };
    for (const { event, doc } of seen) {
      const field = new Set([...runnersOf(doc).values()].map((r) => r.entrant_id));
      if (event.type === 'market.big_bet') {
        counts.bets++;
        const bet = event.data as BigBetData;
        expect(bet.selections).toEqual(bet.legs.filter((l) => l.thisRace).flatMap((l) => l.selections));
        for (const leg of bet.legs) {
          for (const s of leg.selections) {
            expect(s.inField).toBe(leg.thisRace && s.entrantId !== null && field.has(s.entrantId));
            if (s.inField) counts.runnersNamed++;
          }
        }
      } else if (event.type === 'race.mover_changed') {
        counts.movers++;
        const { to, entrant, price } = event.data;
        expect(entrant.inField).toBe(field.has(entrant.entrantId));
        expect(to?.entrantId ?? null).toBe(entrant.inField ? entrant.entrantId : null);
        if (!entrant.inField) expect(price).toBeNull();
      } else if (event.type === 'market.money_flow') {
        const { runner, entrant } = event.data;
        expect(entrant.inField).toBe(field.has(entrant.entrantId));
        expect(runner?.entrantId ?? null).toBe(entrant.inField ? entrant.entrantId : null);
      }
    }
    // The laws were tried: the simulated races had bets (on their runners too) and a mover that changed.
    expect(counts.bets).toBeGreaterThan(0);
    expect(counts.runnersNamed).toBeGreaterThan(0);
    expect(counts.movers).toBeGreaterThan(0);
  }, 120_000);
});
