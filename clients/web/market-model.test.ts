import { readFileSync } from 'node:fs';
import type { RaceEvent } from '@racewire/client';
import { describe, expect, it } from 'vitest';
import { eventResponseSchema } from '../../src/upstream/schemas.js';
import { normaliseEvent } from '../../src/watch/track/normalise.js';
import { bet } from '../../test/watch/market-support.js';
import { marketModel, moveOf } from './market-model.js';

const payload = eventResponseSchema.parse(
  JSON.parse(
    readFileSync(new URL('../../test/fixtures/real/event-final-awapuni.json', import.meta.url), 'utf8'),
  ),
);

describe('the market panel model', () => {
  it('sums each runner’s money tracker rows of the real race into its share, largest first', () => {
    const { shares, bets } = marketModel(normaliseEvent(payload));
    // Computed from the fixture independently (python: sum of hold_percentage per entrant_id).
    expect(shares?.map((s) => [s.number, s.name, s.share])).toEqual([
      [6, 'Keepitinyourwallet', 19],
      [1, 'Tickford', 18],
      [4, 'Ruji', 16],
      [5, 'Starpello', 16],
      [2, 'Frosbie', 13],
      [3, 'Dealers Choice', 5],
      [7, 'Ballinran', 4],
      [8, 'Flor De Cana', 2],
    ]);
    expect(bets).toEqual([]);
  });

  it('lists the big bets newest first with the biggest marked', () => {
    const win = bet('Win', 5000, '2025-07-17T00:41:12.5Z', [4], 4.2);
    const tri = bet('Trifecta', 12000, '2025-07-17T00:44:00Z', [1, 7, 2]);
    const doc = normaliseEvent({
      ...payload,
      data: { ...payload.data, big_bets: [tri, win], biggest_bet: tri },
    });
    expect(marketModel(doc).bets).toEqual([
      {
        key: '2025-07-17T00:44:00Z|12000|Trifecta',
        stake: 12000,
        product: 'Trifecta',
        runners: '1-7-2',
        at: '00:44',
        biggest: true,
      },
      {
        key: '2025-07-17T00:41:12.5Z|5000|Win',
        stake: 5000,
        product: 'Win',
        runners: '#4 Ruji',
        at: '00:41',
        biggest: false,
      },
    ]);
  });

  it('has no shares without a money tracker, and reads plunges and drifts only', () => {
    expect(marketModel({ runners: {} })).toEqual({ shares: null, bets: [] });
    expect(marketModel(null)).toEqual({ shares: null, bets: [] });
    const event = (type: string): RaceEvent => ({
      id: 'r:5',
      type,
      timestamp: '2025-07-17T00:47:50.000Z',
      stream: 'r',
      seq: 5,
      meetingId: 'm',
      raceId: 'r',
      data: { runner: { runnerNumber: 7, name: 'Ballinran' }, from: 41, to: 11, changePct: -73.2 },
    });
    expect(moveOf(event('odds.plunge'))).toEqual({
      id: 'r:5',
      kind: 'plunge',
      runner: '#7 Ballinran',
      from: 41,
      to: 11,
      changePct: -73.2,
    });
    expect(moveOf(event('odds.changed'))).toBeUndefined();
  });
});
