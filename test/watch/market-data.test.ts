import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import type { EventOptions } from '../../src/upstream/client.js';
import type { EventResponse, MeetingsResponse } from '../../src/upstream/schemas.js';
import { marketEventOptions } from '../../src/watch/fetch/market-data.js';
import { createPoller } from '../../src/watch/fetch/poller.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';

const T0 = Date.parse('2025-07-17T00:00:00Z');
const START = T0 + 5 * 60_000;
const options = ['with_big_bets', 'with_biggest_bet', 'with_money_tracker'] as const;
const on: EventOptions = { withBigBets: true, withBiggestBet: true, withMoneyTracker: true };

describe('market data per race', () => {
  const race = { startTime: START } as RaceWatch;

  it('asks from the hot window before the start onward, and never before it', () => {
    const hot = marketEventOptions({ mode: 'hot', windowMinutes: 3, options });
    expect(hot(race, START - 3 * 60_000 - 1)).toEqual({});
    expect(hot(race, START - 3 * 60_000)).toEqual(on);
    expect(hot(race, START + 60 * 60_000)).toEqual(on);
  });

  it('asks always or never when so configured, for exactly the options named', () => {
    const always = marketEventOptions({ mode: 'always', windowMinutes: 3, options: ['with_live_bets'] });
    expect(always(race, T0 - 86_400_000)).toEqual({ withLiveBets: true });
    expect(marketEventOptions({ mode: 'off', windowMinutes: 3, options })(race, START)).toEqual({});
  });

  it('reaches the racing client through the poller with each fetch', async () => {
    const clock = createManualClock(T0);
    const asked: { at: number; opts: EventOptions }[] = [];
    const meetings: MeetingsResponse = {
      header: { title: 'Race Meetings' },
      data: {
        meetings: [
          {
            meeting: 'm1',
            name: 'Awapuni',
            date: '2025-07-17T00:00:00Z',
            category: 'T',
            country: 'NZ',
            races: [
              {
                id: 'r1',
                race_number: 1,
                name: 'R1',
                start_time: new Date(START).toISOString(),
                status: 'Open',
              },
            ],
          },
        ],
      },
    };
    const poller = createPoller({
      clock,
      logger: pino({ level: 'silent' }),
      discoveryIntervalMs: 6_000,
      subscribers: () => new Map(),
      source: {
        meetings: async () => meetings,
        event: async (_id, { priority: _p, signal: _s, ...opts } = {}) => {
          asked.push({ at: clock.now(), opts });
          return { header: { title: 'Event' }, data: {} } as unknown as EventResponse;
        },
      },
      onEvent: async () => ({ kind: 'unchanged', status: 'Open', dividends: 'none' }),
      eventOptions: marketEventOptions({ mode: 'hot', windowMinutes: 3, options }),
    });
    poller.start();
    await clock.advance(4 * 60_000);
    await poller.stop();
    const early = asked.filter((a) => a.at < START - 3 * 60_000);
    const hot = asked.filter((a) => a.at >= START - 3 * 60_000);
    expect(early.length).toBeGreaterThan(0);
    expect(hot.length).toBeGreaterThan(0);
    expect(early.every((a) => Object.keys(a.opts).length === 0)).toBe(true);
    expect(hot.map((a) => a.opts)).toEqual(hot.map(() => on));
  });
});
