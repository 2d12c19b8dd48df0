/** The one text of every event (`@racewire/client/event-text`), which the board, racewire-tail and chat share. */
import { EVENT_TYPES, type RaceEvent } from '@racewire/client';
import { describeEvent, type EventText, summaryLine } from '@racewire/client/event-text';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../../clients/js/src/text-parts.js';
import { DOCS_RACE, docsEventExamples } from './docs-examples.js';

const race = { meetingName: 'Awapuni', raceNumber: 3, raceName: 'PRYDA HANDICAP 1700' };
const event = (type: string, data: unknown): RaceEvent => ({
  id: 'r:1',
  type,
  timestamp: '2026-11-22T21:04:05.000Z',
  stream: 'r',
  seq: 1,
  meetingId: 'm1',
  raceId: 'r',
  data,
});
const runner = { runnerNumber: 4, name: 'Tickford' };
/** What a feed or a terminal shows: the place, the one line and the tone. */
const line = (e: RaceEvent) => {
  const text = describeEvent(e);
  return { where: text.where, line: summaryLine(text), tone: text.tone };
};

describe('every event type of docs/events.md', () => {
  const examples = docsEventExamples();

  it('has an example there, and the page documents every type racewire sends', () => {
    expect(examples.map((e) => e.type).sort()).toEqual([...EVENT_TYPES].sort());
  });

  // Each type's own wording, from the page's own example: none falls through to the generic title.
  const expected: Record<string, Omit<EventText, 'where' | 'race'>> = {
    'race.status_changed': { title: 'Status Open → Closed', facts: [], details: [], tone: 'info' },
    'race.abandoned': { title: 'Abandoned', facts: [], details: ['Was Open'], tone: 'alert' },
    'race.jumped': { title: 'Jumped 2 min 46 s late', facts: [], details: [], tone: 'info' },
    'race.start_time_changed': {
      title: 'Start time put back 2 min',
      facts: [],
      details: ['Now 00:52 UTC'],
      tone: 'alert',
    },
    'race.track_condition_changed': {
      title: 'Track Synthetic → Heavy9',
      facts: [],
      details: [],
      tone: 'info',
    },
    'race.protest': {
      title: 'Protest dismissed',
      facts: ['Protest DISMISSED - 3rd (#7) v 1st (#2)'],
      details: [],
      tone: 'alert',
    },
    'race.favourite_changed': {
      title: 'New favourite #1 Tickford at $4.40',
      facts: [],
      details: ['Was #4 Ruji'],
      tone: 'up',
    },
    'race.results': {
      title: 'Amended results',
      facts: ['1. #4 Ruji', '2. #2 Frosbie', '3. #7 Ballinran (2.3L)'],
      details: [],
      tone: 'result',
    },
    'race.dividends': { title: 'Final dividends', facts: ['Win #2 $6.60'], details: [], tone: 'result' },
    'runner.scratched': { title: '#8 Flor De Cana scratched (late)', facts: [], details: [], tone: 'alert' },
    'runner.reinstated': { title: '#8 Flor De Cana reinstated', facts: [], details: [], tone: 'info' },
    'runner.added': { title: '#9 Late Entry added to the field', facts: [], details: [], tone: 'info' },
    'runner.removed': {
      title: '#9 Late Entry removed from the field',
      facts: [],
      details: [],
      tone: 'alert',
    },
    'runner.jockey_changed': {
      title: '#2 Frosbie rider Kelly Myers → Opie Bosson',
      facts: [],
      details: [],
      tone: 'info',
    },
    'odds.changed': {
      title: '#1 Tickford firming fixed win $5.00 → $4.40 (-12.0%)',
      facts: [],
      details: [],
      tone: 'up',
    },
    'odds.pools_changed': {
      title: 'Tote: 2 prices changed',
      facts: ['#1 Tickford tote win $4.60 → $4.40 (-4.3%)', '#4 Ruji tote place opened at $1.90'],
      details: [],
      tone: 'info',
    },
    'odds.plunge': {
      title: '↘ Firming: #7 Ballinran $41.00 → $11.00 (-73.2% in 15 min)',
      facts: [],
      details: ['Flucs: $41.00 → $18.00 → $11.00'],
      tone: 'up',
    },
    // The page shows one example for both: a drift's own numbers are in the cases below.
    'odds.drift': {
      title: '↗ Drifting: #7 Ballinran $41.00 → $11.00 (-73.2% in 15 min)',
      facts: [],
      details: ['Flucs: $41.00 → $18.00 → $11.00'],
      tone: 'down',
    },
    'race.mover_changed': {
      title: 'Market mover: #1 Tickford $8.50 → $5.00',
      facts: [],
      details: ['Was #4 Ruji'],
      tone: 'up',
    },
    'runner.deduction': {
      title: 'Deductions after scratching #8 Flor De Cana: win 2, place 6',
      facts: [],
      details: [],
      tone: 'alert',
    },
    'market.big_bet': {
      title: '$5,000 Win on #4 Ruji at $4.20 (biggest)',
      facts: [],
      details: ['Placed 00:41 UTC'],
      tone: 'alert',
    },
    'market.money_flow': {
      title: '↗ Money for #7 Ballinran: 5% → 10% of the money',
      facts: [],
      details: ['+5 points in 10 min'],
      tone: 'up',
    },
    'pool.total': { title: 'Win pool passes $5,000', facts: [], details: ['Total $9,151.38'], tone: 'info' },
    'meeting.added': { title: 'Meeting added (1 race)', facts: [], details: [], tone: 'info' },
    'meeting.race_added': {
      title: 'Race added: R9',
      facts: [],
      details: ['LATE ADDITION 1200'],
      tone: 'info',
    },
    'meeting.race_removed': {
      title: 'Race removed: R9',
      facts: [],
      details: ['LATE ADDITION 1200'],
      tone: 'alert',
    },
  };

  it.each(examples)('$type has its own wording', ({ type, data }) => {
    const text = describeEvent(event(type, data));
    const meeting = type.startsWith('meeting.');
    expect(text).toEqual({
      where: meeting ? 'Awapuni' : `${DOCS_RACE.meetingName} R1`,
      race: meeting ? 'Awapuni' : `${DOCS_RACE.meetingName} R1 (${DOCS_RACE.raceName})`,
      ...expected[type],
    });
    expect(text.title).not.toBe(type);
  });

  it('titles a type racewire does not send (a newer server) with its type name', () => {
    expect(describeEvent(event('some.future_type', { race }))).toEqual({
      where: 'Awapuni R3',
      race: 'Awapuni R3 (PRYDA HANDICAP 1700)',
      title: 'some.future_type',
      facts: [],
      details: [],
      tone: 'info',
    });
  });
});

describe('event lines', () => {
  it.each([
    [
      event('odds.changed', {
        race,
        runner,
        market: 'fixed_place',
        from: 2,
        to: 3,
        changePct: 50,
        direction: 'drifting',
      }),
      { where: 'Awapuni R3', line: '#4 Tickford drifting fixed place $2.00 → $3.00 (+50.0%)', tone: 'down' },
    ],
    [
      event('odds.pools_changed', {
        race,
        changes: [
          {
            runner,
            market: 'pool_win',
            from: 4,
            to: 3,
            changePct: -25,
            direction: 'firming',
            significant: true,
          },
          { runner, market: 'pool_place', from: 1.5, to: 1.6, changePct: 6.7, direction: 'drifting' },
          { runner, market: 'pool_win', from: null, to: 7, changePct: null, direction: 'opened' },
          { runner, market: 'pool_place', from: 2, to: null, changePct: null, direction: 'withdrawn' },
        ],
      }),
      {
        where: 'Awapuni R3',
        line: 'Tote: 4 prices changed, 1 significant: #4 Tickford tote win $4.00 → $3.00 (-25.0%) · #4 Tickford tote place $1.50 → $1.60 (+6.7%) · #4 Tickford tote win opened at $7.00 · +1 more',
        tone: 'info',
      },
    ],
    [
      event('race.results', {
        race,
        kind: 'interim',
        results: [
          { position: 1, runnerNumber: 2, name: 'Frosbie', marginLength: 0 },
          { position: 2, runnerNumber: 4, name: 'Ruji', marginLength: 0.4 },
          { position: 3, runnerNumber: 7, name: 'Ballinran', deadHeat: true, marginLength: 1 },
          { position: 3, runnerNumber: 6, name: 'Sky Lantern', deadHeat: true, marginLength: 1 },
        ],
      }),
      {
        where: 'Awapuni R3',
        line: 'Interim results: 1. #2 Frosbie · 2. #4 Ruji (0.4L) · 3. #7 Ballinran (dead heat, 1L) · +1 more',
        tone: 'result',
      },
    ],
    [
      // Upstream's order, Win last: the line reads Win first, then Place, Quinella, First Four.
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
        where: 'Awapuni R3',
        line: 'Final dividends: Win #2 $6.60 · Place #2 $1.70, #4 $1.90 · Quinella 2-4 $13.70 · +1 more',
        tone: 'result',
      },
    ],
    [
      event('race.start_time_changed', { race, deltaSeconds: -300 }),
      { where: 'Awapuni R3', line: 'Start time brought forward 5 min', tone: 'alert' },
    ],
    [
      event('odds.drift', {
        race,
        runner: { runnerNumber: 2, name: 'Frosbie' },
        from: 4.6,
        to: 7.5,
        changePct: 63,
      }),
      { where: 'Awapuni R3', line: '↗ Drifting: #2 Frosbie $4.60 → $7.50 (+63.0%)', tone: 'down' },
    ],
    [
      event('market.big_bet', {
        race,
        product: 'Pool Trifecta',
        stake: 1250.5,
        selections: [1, 2, 3, 4, 5, 6].map((runnerNumber) => ({ runnerNumber, name: `R${runnerNumber}` })),
      }),
      {
        where: 'Awapuni R3',
        line: '$1,250.50 Pool Trifecta on #1 R1, #2 R2, #3 R3, #4 R4, +2 more',
        tone: 'alert',
      },
    ],
    [
      event('race.mover_changed', {
        race,
        to: null,
        entrant: { entrantId: 'x', name: 'Sky Lantern', inField: false },
        price: 5,
        openPrice: 8.5,
      }),
      {
        where: 'Awapuni R3',
        line: 'Market mover: Sky Lantern (outside the field) $8.50 → $5.00',
        tone: 'up',
      },
    ],
    [
      event('market.money_flow', {
        race,
        runner: null,
        entrant: { entrantId: 'x', name: null, inField: false },
        from: 10,
        to: 5,
        direction: 'against',
      }),
      {
        where: 'Awapuni R3',
        line: '↘ Money against an entrant outside the field: 10% → 5% of the money',
        tone: 'down',
      },
    ],
  ])('%#: %o', (e, expected) => {
    expect(line(e)).toEqual(expected);
  });

  it.each([
    [335, 'Jumped 5 min 35 s late'],
    [-40, 'Jumped 40 s early'],
    [0.3, 'Jumped on time'],
    [null, 'Jumped'],
  ])('says how a race jumped: %s s', (delaySeconds, title) => {
    expect(describeEvent(event('race.jumped', { race, delaySeconds })).title).toBe(title);
  });

  it('writes durations in minutes and seconds', () => {
    expect([335, 40, 120, 3900, 7200, -75].map(formatDuration)).toEqual([
      '5 min 35 s',
      '40 s',
      '2 min',
      '1 h 5 min',
      '2 h',
      '1 min 15 s',
    ]);
  });
});

describe('odd data', () => {
  it('falls back to the meeting id and question marks, never a throw', () => {
    for (const data of [null, 7, 'x', [], { race: 'x', runner: null, results: 'no', dividends: {} }]) {
      expect(line(event('runner.scratched', data))).toEqual({
        where: 'm1',
        line: 'A runner scratched',
        tone: 'alert',
      });
      expect(line(event('odds.plunge', data)).line).toBe('↘ Firming: a runner $? → $? (?%)');
      expect(line(event('race.dividends', data)).line).toBe('Dividends');
    }
  });

  it('gives strings whatever the data, for every type (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...EVENT_TYPES, 'x.unknown'), fc.jsonValue(), (type, data) => {
        const text = describeEvent(event(type, data));
        for (const s of [text.where, text.race, text.title, ...text.facts, ...text.details])
          expect(typeof s).toBe('string');
        expect(['up', 'down', 'alert', 'result', 'info']).toContain(text.tone);
        expect(summaryLine(text).startsWith(text.title)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
