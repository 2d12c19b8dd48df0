/** Webhook endpoints and the firehose choose market events by type family and by their own thresholds. */
import { describe, expect, it } from 'vitest';
import type { RaceCatalog } from '../../src/delivery/core/catalog.js';
import { matchesFilter } from '../../src/delivery/core/fanout.js';
import { createBody, filtersSchema } from '../../src/delivery/webhooks/api/schemas.js';
import { endpointWants } from '../../src/delivery/webhooks/endpoint-match.js';
import type { EventEntry, RaceEvent } from '../../src/events/envelope.js';

const event = (type: string, data: Record<string, unknown> = {}): RaceEvent => ({
  id: 'r1:4',
  type,
  timestamp: '2025-07-17T00:47:50.000Z',
  stream: 'r1',
  seq: 4,
  meetingId: 'm1',
  raceId: 'r1',
  data: { race: { country: 'NZ', category: 'T' }, ...data },
});

describe('webhook endpoints and market events', () => {
  it('take a family of types such as market.*', () => {
    expect(endpointWants(['market.*'], {}, event('market.big_bet', { stake: 5000 }))).toBe(true);
    expect(endpointWants(['market.*'], {}, event('market.money_flow', { changePoints: 6 }))).toBe(true);
    expect(endpointWants(['market.*'], {}, event('odds.plunge', { changePct: -30 }))).toBe(false);
    expect(endpointWants(['odds.*'], {}, event('odds.plunge', { changePct: -30 }))).toBe(true);
    expect(endpointWants(['market.*'], {}, event('marketing.news'))).toBe(false);
  });

  it('apply their own thresholds to the types they concern, and only to those', () => {
    const only10k = { minStake: 10_000 };
    expect(endpointWants(['*'], only10k, event('market.big_bet', { stake: 9_999 }))).toBe(false);
    expect(endpointWants(['*'], only10k, event('market.big_bet', { stake: 10_000 }))).toBe(true);
    expect(endpointWants(['*'], only10k, event('runner.scratched'))).toBe(true);
    const bigMoves = { minMovePct: 40, minMoneyPoints: 8 };
    expect(endpointWants(['*'], bigMoves, event('odds.plunge', { changePct: -39.9 }))).toBe(false);
    expect(endpointWants(['*'], bigMoves, event('odds.plunge', { changePct: -73.2 }))).toBe(true);
    expect(endpointWants(['*'], bigMoves, event('odds.drift', { changePct: 63 }))).toBe(true);
    expect(endpointWants(['*'], bigMoves, event('market.money_flow', { changePoints: -7 }))).toBe(false);
    expect(endpointWants(['*'], bigMoves, event('market.money_flow', { changePoints: -8 }))).toBe(true);
    // An event without the member a threshold reads does not pass it.
    expect(endpointWants(['*'], only10k, event('market.big_bet'))).toBe(false);
  });

  it('are registered with families and thresholds, and refuse bad ones', () => {
    const ok = createBody.safeParse({
      url: 'https://hooks.example/x',
      eventTypes: ['market.*', 'odds.plunge'],
      filters: { minStake: 10_000, minMovePct: 30, minMoneyPoints: 5 },
    });
    expect(ok.success).toBe(true);
    expect(filtersSchema.safeParse({ minStake: -1 }).success).toBe(false);
    expect(filtersSchema.safeParse({ minStakes: 5 }).success).toBe(false);
    expect(createBody.safeParse({ url: 'https://hooks.example/x', eventTypes: ['market*'] }).success).toBe(
      false,
    );
  });
});

describe('the firehose filter and market events', () => {
  const catalog: RaceCatalog = {
    race: (raceId) => ({
      raceId,
      meetingId: 'm1',
      country: 'NZ',
      category: 'T',
      status: 'Open',
      startTime: 0,
    }),
    racesOfMeeting: () => ['r1'],
    staleness: () => undefined,
  };
  const entry = (type: string): EventEntry => ({
    kind: 'event',
    stream: 'r1',
    seq: 4,
    timestamp: '2025-07-17T00:47:50.000Z',
    event: event(type),
  });

  it('takes families of types beside exact ones', () => {
    expect(matchesFilter({ types: ['market.*'] }, catalog, entry('market.big_bet'))).toBe(true);
    expect(matchesFilter({ types: ['market.*'] }, catalog, entry('odds.drift'))).toBe(false);
    expect(matchesFilter({ types: ['odds.drift'], countries: ['NZ'] }, catalog, entry('odds.drift'))).toBe(
      true,
    );
    expect(matchesFilter({ types: ['market.*'], countries: ['AUS'] }, catalog, entry('market.big_bet'))).toBe(
      false,
    );
  });
});
