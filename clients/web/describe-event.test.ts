import type { RaceEvent } from '@racewire/client';
import { describe, expect, it } from 'vitest';
import { describeEvent } from './describe-event.js';

const race = { meetingName: 'Awapuni', raceNumber: 3 };
const event = (type: string, data: unknown): RaceEvent => ({
  id: `r:1`,
  type,
  timestamp: '2026-11-22T21:04:05.000Z',
  stream: 'r',
  seq: 1,
  meetingId: 'm1',
  raceId: 'r',
  data,
});
const runner = { runnerNumber: 4, name: 'Tickford' };

describe('event lines', () => {
  it.each([
    [
      event('odds.changed', {
        race,
        runner,
        market: 'fixed_win',
        from: 5,
        to: 4.4,
        changePct: -12,
        direction: 'firming',
      }),
      { where: 'Awapuni R3', what: '#4 Tickford firming fixed win 5.00 → 4.40 (-12.0%)', tone: 'up' },
    ],
    [
      event('odds.changed', {
        race,
        runner,
        market: 'pool_place',
        from: 2,
        to: 3,
        changePct: 50,
        direction: 'drifting',
      }),
      { where: 'Awapuni R3', what: '#4 Tickford drifting pool place 2.00 → 3.00 (+50.0%)', tone: 'down' },
    ],
    [
      event('runner.scratched', { race, runner, late: true }),
      { what: '#4 Tickford scratched (late)', tone: 'alert' },
    ],
    [
      event('race.jumped', { race, delaySeconds: 335 }),
      { where: 'Awapuni R3', what: 'jumped 5 min 35 s late', tone: 'info' },
    ],
    [
      event('race.status_changed', { race, from: 'Open', to: 'Closed' }),
      { what: 'status Open → Closed', tone: 'info' },
    ],
    [
      event('race.results', {
        race,
        kind: 'interim',
        results: [
          { position: 1, runnerNumber: 2, name: 'Frosbie', marginLength: 0 },
          { position: 2, runnerNumber: 4, name: 'Ruji', marginLength: 0.4 },
        ],
      }),
      { what: 'results (interim): 1. #2 Frosbie, 2. #4 Ruji (0.4L)', tone: 'result' },
    ],
    [
      event('race.dividends', {
        race,
        status: 'Final',
        dividends: [
          {
            productName: 'Pool First4',
            dividend: 1350.4,
            positions: [2, 4, 7, 6].map((runnerNumber) => ({ runnerNumber })),
          },
          { productName: 'Pool Place', dividend: 1.9, positions: [{ runnerNumber: 4, position: 1 }] },
          { productName: 'Pool Place', dividend: 1.7, positions: [{ runnerNumber: 2, position: 1 }] },
          {
            productName: 'Pool Quinella',
            dividend: 13.7,
            positions: [{ runnerNumber: 2 }, { runnerNumber: 4 }],
          },
          { productName: 'Pool Win', dividend: 6.6, positions: [{ runnerNumber: 2, position: 1 }] },
        ],
      }),
      {
        what: 'Final dividends: Win #2 $6.60 · Place #2 $1.70, #4 $1.90 · Quinella 2-4 $13.70 · +1 more',
        tone: 'result',
      },
    ],
    [
      event('race.start_time_changed', { race, deltaSeconds: 300 }),
      { what: 'start time moved (+5 min)', tone: 'alert' },
    ],
    [
      event('meeting.race_added', { meeting: { name: 'Awapuni' }, race: { raceNumber: 9 } }),
      { where: 'Awapuni', what: 'race added: R9', tone: 'info' },
    ],
  ])('describes %#', (e, expected) => {
    expect(describeEvent(e)).toMatchObject(expected);
  });

  it('never throws on malformed data and falls back to the meeting id and the type', () => {
    for (const data of [null, 7, 'x', [], { race: 'x', runner: null, results: 'no', dividends: {} }]) {
      for (const type of ['odds.changed', 'race.results', 'race.dividends', 'some.future_type']) {
        const line = describeEvent(event(type, data));
        expect(line.where).toBe('m1');
        expect(typeof line.what).toBe('string');
      }
    }
    expect(describeEvent(event('some.future_type', {})).what).toBe('some.future_type');
  });
});
