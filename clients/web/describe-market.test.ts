import type { RaceEvent } from '@racewire/client';
import { describe, expect, it } from 'vitest';
import { describeEvent } from './describe-event.js';

const race = { meetingName: 'Awapuni Synthetic', raceNumber: 1 };
const event = (type: string, data: Record<string, unknown>): RaceEvent => ({
  id: 'r:1',
  type,
  timestamp: '2025-07-17T00:47:50.000Z',
  stream: 'r',
  seq: 1,
  meetingId: 'm1',
  raceId: 'r',
  data: { race, ...data },
});
const ballinran = { runnerNumber: 7, name: 'Ballinran' };

describe('market event lines', () => {
  it.each([
    [
      event('odds.plunge', {
        runner: ballinran,
        from: 41,
        to: 11,
        changePct: -73.2,
        window: { minutes: 15 },
      }),
      { what: '↘ plunge #7 Ballinran 41.00 → 11.00 (-73.2% in 15 min)', tone: 'up' },
    ],
    [
      event('odds.drift', {
        runner: { runnerNumber: 2, name: 'Frosbie' },
        from: 4.6,
        to: 7.5,
        changePct: 63,
      }),
      { what: '↗ drift #2 Frosbie 4.60 → 7.50 (+63.0%)', tone: 'down' },
    ],
    [
      event('market.big_bet', {
        product: 'Win',
        stake: 5000,
        odds: 4.2,
        selections: [{ position: 1, runnerNumber: 4, name: 'Ruji' }],
        biggest: true,
      }),
      { what: '$5,000 Win on #4 Ruji at 4.20 (biggest)', tone: 'alert' },
    ],
    [
      event('market.money_flow', { runner: ballinran, from: 5, to: 10, direction: 'for' }),
      { what: '↗ money for #7 Ballinran 5% → 10%', tone: 'up' },
    ],
    [
      event('race.mover_changed', { to: { runnerNumber: 1, name: 'Tickford' }, price: 5, openPrice: 8.5 }),
      { what: 'market mover #1 Tickford 8.50 → 5.00', tone: 'up' },
    ],
    [
      event('race.mover_changed', {
        to: null,
        entrant: { entrantId: 'x', name: 'Sky Lantern', inField: false },
        price: 5,
        openPrice: 8.5,
      }),
      { what: 'market mover Sky Lantern (outside the field) 8.50 → 5.00', tone: 'up' },
    ],
    [
      event('market.money_flow', {
        runner: null,
        entrant: { entrantId: 'x', name: null, inField: false },
        from: 5,
        to: 10,
        direction: 'for',
      }),
      { what: '↗ money for an entrant outside the field 5% → 10%', tone: 'up' },
    ],
    [
      event('runner.deduction', { runner: { runnerNumber: 8, name: 'Flor De Cana' }, win: 2, place: 6 }),
      { what: 'deductions after #8 Flor De Cana: win 2, place 6', tone: 'alert' },
    ],
    [
      event('pool.total', { pool: 'Win', milestone: 10000, total: 10512.4 }),
      { what: 'Win pool passes $10,000', tone: 'info' },
    ],
  ])('%#: describes %s', (e, line) => {
    expect(describeEvent(e)).toEqual({ where: 'Awapuni Synthetic R1', ...line });
  });

  it('never throws on odd data', () => {
    for (const type of ['odds.plunge', 'market.big_bet', 'market.money_flow', 'pool.total'])
      expect(describeEvent({ ...event(type, {}), data: null }).what).toBeTypeOf('string');
  });
});
