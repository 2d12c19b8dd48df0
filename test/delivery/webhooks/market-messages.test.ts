/**
 * Chat messages of the market events, from events detected on the real Awapuni R1 (test/watch): the SDK's text
 * of each (test/sdk/event-text.test.ts), the race line first, then its details.
 */
import { describe, expect, it } from 'vitest';
import { discordPayload } from '../../../src/delivery/webhooks/formatters/discord.js';
import { slackPayload } from '../../../src/delivery/webhooks/formatters/slack.js';
import type { RaceEvent } from '../../../src/events/envelope.js';

const race = {
  raceId: 'r1',
  meetingId: 'm1',
  meetingName: 'Awapuni Synthetic',
  raceNumber: 1,
  raceName: 'PRYDA HANDICAP 1700',
  country: 'NZ',
  advertisedStart: '2025-07-17T00:50:00.000Z',
  status: 'Open',
};
const ruji = { entrantId: 'e4', runnerNumber: 4, name: 'Ruji', barrier: 1 };
const ballinran = { entrantId: 'e7', runnerNumber: 7, name: 'Ballinran', barrier: 5 };
const event = (type: string, data: Record<string, unknown>): RaceEvent => ({
  id: 'r1:9',
  type,
  timestamp: '2025-07-17T00:47:50.000Z',
  stream: 'r1',
  seq: 9,
  meetingId: 'm1',
  raceId: 'r1',
  data: { race, ...data },
});
const slack = (e: RaceEvent) => (slackPayload(e) as { text: string }).text.split('\n');
const discordTitle = (e: RaceEvent) =>
  (discordPayload(e) as { embeds: { title: string }[] }).embeds[0]?.title;

describe('market chat messages', () => {
  it('show a plunge with an arrow, the prices in dollars and the flucs', () => {
    const plunge = event('odds.plunge', {
      runner: ballinran,
      market: 'fixed_win',
      from: 41,
      to: 11,
      changePct: -73.2,
      window: { minutes: 15, from: '2025-07-17T00:32:47.069Z', to: '2025-07-17T00:47:47.069Z' },
      flucs: [
        { timestamp: '2025-07-15T04:30:44.920921465Z', price: 41 },
        { timestamp: '2025-07-17T00:32:53.435453539Z', price: 18 },
        { timestamp: '2025-07-17T00:47:47.069432664Z', price: 11 },
      ],
    });
    expect(slack(plunge)).toEqual([
      '↘ Firming: #7 Ballinran $41.00 → $11.00 (-73.2% in 15 min)',
      'Awapuni Synthetic R1 (PRYDA HANDICAP 1700)',
      'Flucs: $41.00 → $18.00 → $11.00',
    ]);
    expect(discordTitle(plunge)).toBe('↘ Firming: #7 Ballinran $41.00 → $11.00 (-73.2% in 15 min)');
    const drift = event('odds.drift', {
      runner: ruji,
      from: 4.6,
      to: 7.5,
      changePct: 63,
      window: { minutes: 15 },
    });
    expect(slack(drift)[0]).toBe('↗ Drifting: #4 Ruji $4.60 → $7.50 (+63.0% in 15 min)');
    // Discord colours by tone: green for firming, red for drifting.
    expect(
      [plunge, drift].map((e) => (discordPayload(e) as { embeds: { color: number }[] }).embeds[0]?.color),
    ).toEqual([0x16a34a, 0xdc2626]);
  });

  it('show a big bet with its stake, product, runners and price', () => {
    const big = event('market.big_bet', {
      product: 'Win',
      stake: 5000,
      odds: 4.2,
      placedAt: '2025-07-17T00:41:12.500Z',
      selections: [{ position: 1, runnerNumber: 4, name: 'Ruji', entrantId: 'e4' }],
      biggest: true,
    });
    expect(slack(big)).toEqual([
      '$5,000 Win on #4 Ruji at $4.20 (biggest)',
      'Awapuni Synthetic R1 (PRYDA HANDICAP 1700)',
      'Placed 00:41 UTC',
    ]);
  });

  it('name an entrant outside the field as itself, never as one of the runners', () => {
    const entrant = { entrantId: 'x', name: 'Sky Lantern', inField: false };
    const lines = [
      event('race.mover_changed', { from: ruji, to: null, entrant, price: 5, openPrice: 8.5 }),
      event('market.money_flow', {
        runner: null,
        entrant,
        from: 5,
        to: 10,
        changePoints: 5,
        direction: 'for',
        window: { minutes: 10 },
      }),
    ].map((e) => slack(e).filter((l) => !l.startsWith('Awapuni'))[0]);
    expect(lines).toEqual([
      'Market mover: Sky Lantern (outside the field) $8.50 → $5.00',
      '↗ Money for Sky Lantern (outside the field): 5% → 10% of the money',
    ]);
  });

  it('show money flow, the mover, deductions and pool milestones', () => {
    const lines = [
      event('market.money_flow', {
        runner: ballinran,
        from: 5,
        to: 10,
        changePoints: 5,
        direction: 'for',
        window: { minutes: 10 },
      }),
      event('race.mover_changed', {
        from: ruji,
        to: { ...ballinran, name: 'Tickford', runnerNumber: 1 },
        price: 5,
        openPrice: 8.5,
      }),
      event('runner.deduction', {
        runner: { ...ruji, runnerNumber: 8, name: 'Flor De Cana' },
        win: 2,
        place: 6,
        previous: null,
      }),
      event('pool.total', {
        pool: 'Win',
        milestone: 10000,
        total: 10512.4,
        previousTotal: 9151.38,
        status: 'OPEN',
      }),
    ].map((e) => slack(e).filter((l) => !l.startsWith('Awapuni')));
    expect(lines).toEqual([
      ['↗ Money for #7 Ballinran: 5% → 10% of the money', '+5 points in 10 min'],
      ['Market mover: #1 Tickford $8.50 → $5.00', 'Was #4 Ruji'],
      ['Deductions after scratching #8 Flor De Cana: win 2, place 6'],
      ['Win pool passes $10,000', 'Total $10,512.40'],
    ]);
  });
});
