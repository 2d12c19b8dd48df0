/**
 * Market events over the real Awapuni R1 payload: its real flucs, mover, tote pools and money tracker, with
 * bets in the official Bet shape (the captured payload was fetched with the bet options off).
 */
import type { RaceContext, RunnerRef } from '@racewire/client/protocol';
import { describe, expect, it } from 'vitest';
import { redactValue } from '../../src/delivery/core/redact.js';
import { RESTRICTED_ENTRANT_FIELDS, RESTRICTED_RACE_FIELDS } from '../../src/events/restricted-fields.js';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';
import { bet, marketSteps, openPayload, withFlucs } from './market-support.js';
import { openOutsideField } from './real-variants.js';
import { change, type Loose, MEETING_ID, RACE_ID, runner } from './support.js';

const race: RaceContext = {
  raceId: RACE_ID,
  meetingId: MEETING_ID,
  meetingName: 'Awapuni Synthetic',
  raceNumber: 1,
  raceName: 'PRYDA HANDICAP 1700',
  category: 'T',
  country: 'NZ',
  advertisedStart: '2025-07-17T00:50:00.000Z',
  status: 'Open',
};
const R: Record<number, RunnerRef> = {
  1: { entrantId: '61181b8c-a540-43a8-900c-83ebe680e218', runnerNumber: 1, name: 'Tickford', barrier: 7 },
  2: { entrantId: 'a8cc87d4-5a53-47b2-bb26-58d555aac7c0', runnerNumber: 2, name: 'Frosbie', barrier: 2 },
  4: { entrantId: '7346bd2c-c03d-41c3-bcb9-2b085c4e72cd', runnerNumber: 4, name: 'Ruji', barrier: 1 },
  7: { entrantId: '00e07f98-6cba-4018-be48-233a677f42e1', runnerNumber: 7, name: 'Ballinran', barrier: 5 },
  8: { entrantId: '8536e165-37a6-4ee0-94be-21544b10217c', runnerNumber: 8, name: 'Flor De Cana', barrier: 8 },
};
/** Runner `n` as a market record names it: in this race's field. */
const inField = (n: number) => ({ entrantId: R[n]!.entrantId, name: R[n]!.name, inField: true });

// Ballinran's real flucs: 41 at the open, 18, 11, 13 in the last half hour.
const BALLINRAN: [string, number][] = [
  ['2025-07-15T04:30:44.920921465Z', 41],
  ['2025-07-17T00:32:53.435453539Z', 18],
  ['2025-07-17T00:47:47.069432664Z', 11],
  ['2025-07-17T00:51:07.323491416Z', 13],
];

describe('odds.plunge and odds.drift', () => {
  it('reports the real 41 -> 11 of Ballinran within 15 minutes, and not the drift tick back to 13', () => {
    const open = openPayload();
    const steps = marketSteps([
      { payload: withFlucs(open, 7, BALLINRAN.slice(0, 2)) },
      { payload: withFlucs(open, 7, BALLINRAN.slice(0, 3)) },
      { payload: withFlucs(open, 7, BALLINRAN) },
    ]);
    expect(steps[1]).toEqual([
      {
        type: 'odds.plunge',
        data: {
          race,
          runner: R[7],
          market: 'fixed_win',
          from: 41,
          to: 11,
          changePct: -73.2,
          // 41 was the price until 00:32:53, so it held at the window's start (00:32:47).
          window: { minutes: 15, from: '2025-07-17T00:32:47.069Z', to: '2025-07-17T00:47:47.069Z' },
          flucs: [
            { timestamp: BALLINRAN[0]![0], price: 41 },
            { timestamp: BALLINRAN[1]![0], price: 18 },
            { timestamp: BALLINRAN[2]![0], price: 11 },
          ],
        },
      },
    ]);
    expect(steps[2]).toEqual([]);
  });

  it('reports the same plunge when one payload brings both the 11 and the tick back to 13: the flucs decide, not the polling', () => {
    const open = openPayload();
    const first = { payload: withFlucs(open, 7, BALLINRAN.slice(0, 2)) };
    const polledEach = marketSteps([
      first,
      { payload: withFlucs(open, 7, BALLINRAN.slice(0, 3)) },
      { payload: withFlucs(open, 7, BALLINRAN) },
    ]);
    const polledOnce = marketSteps([first, { payload: withFlucs(open, 7, BALLINRAN) }]);
    expect(polledOnce[1]?.map((e) => [e.type, (e.data as Loose).to])).toEqual([['odds.plunge', 11]]);
    expect(polledOnce[1]).toEqual([...polledEach[1]!, ...polledEach[2]!]);
  });

  it('reports the real drift of Frosbie from 4.6 to 7.5', () => {
    const frosbie: [string, number][] = [
      ['2025-07-15T04:30:44.920955445Z', 3.9],
      ['2025-07-17T00:31:20.321801961Z', 4.6],
      ['2025-07-17T00:50:57.713912831Z', 7.5],
    ];
    const open = openPayload();
    const [, events] = marketSteps([
      { payload: withFlucs(open, 2, frosbie.slice(0, 2)) },
      { payload: withFlucs(open, 2, frosbie) },
    ]);
    expect(events).toEqual([
      {
        type: 'odds.drift',
        data: {
          race,
          runner: R[2],
          market: 'fixed_win',
          from: 4.6,
          to: 7.5,
          changePct: 63,
          window: { minutes: 15, from: '2025-07-17T00:35:57.713Z', to: '2025-07-17T00:50:57.713Z' },
          flucs: [
            { timestamp: frosbie[1]![0], price: 4.6 },
            { timestamp: frosbie[2]![0], price: 7.5 },
          ],
        },
      },
    ]);
  });

  it('says nothing of a move below the threshold, one outside the window, or a scratched runner', () => {
    const open = openPayload();
    const t = (m: number) => new Date(Date.parse('2025-07-17T00:20:00Z') + m * 60_000).toISOString();
    const quiet = marketSteps([
      { payload: withFlucs(open, 4, [[t(0), 5]]) },
      {
        payload: withFlucs(open, 4, [
          [t(0), 5],
          [t(5), 4.2],
        ]),
      }, // -16 %
      {
        payload: withFlucs(open, 4, [
          [t(0), 5],
          [t(5), 4.2],
          [t(25), 3.9],
        ]),
      }, // -22 % from 5, but 25 min on: in force at the window's start was 4.2 (-7 %)
    ]);
    expect(quiet).toEqual([[], [], []]);
    const scratched = change(
      withFlucs(open, 4, [
        [t(0), 5],
        [t(5), 3],
      ]),
      (d) => {
        runner(d, 4).is_scratched = true;
      },
    );
    const steps = marketSteps([{ payload: withFlucs(open, 4, [[t(0), 5]]) }, { payload: scratched }]);
    expect(steps[1]?.filter((e) => e.type.startsWith('odds.'))).toEqual([]);
  });

  it('follows the configured thresholds', () => {
    const open = openPayload();
    const t0 = '2025-07-17T00:40:00.000Z';
    const t1 = '2025-07-17T00:45:00.000Z';
    const steps = marketSteps(
      [
        { payload: withFlucs(open, 4, [[t0, 5]]) },
        {
          payload: withFlucs(open, 4, [
            [t0, 5],
            [t1, 4.2],
          ]),
        },
      ],
      { ...DEFAULT_MARKET_THRESHOLDS, plungePct: 15 },
    );
    expect(steps[1]?.map((e) => [e.type, (e.data as Loose).changePct])).toEqual([['odds.plunge', -16]]);
  });
});

describe('race.mover_changed', () => {
  it('follows upstream mover flag, with the price and the opening fluc', () => {
    const before = change(openPayload(), (d) => {
      d.mover = { ...d.mover, entrant_id: R[4]!.entrantId };
      runner(d, 1).mover = false;
      runner(d, 4).mover = true;
    });
    const [, events] = marketSteps([{ payload: before }, { payload: openPayload() }]);
    expect(events).toEqual([
      {
        type: 'race.mover_changed',
        data: { race, from: R[4], to: R[1], entrant: inField(1), price: 5, openPrice: 8.5 },
      },
    ]);
  });

  it('names no runner as the previous mover when the previous one was outside the field', () => {
    const [, events] = marketSteps([{ payload: openOutsideField() }, { payload: openPayload() }]);
    expect(events).toEqual([
      {
        type: 'race.mover_changed',
        data: { race, from: null, to: R[1], entrant: inField(1), price: 5, openPrice: 8.5 },
      },
    ]);
  });

  it('says nothing when the mover member goes missing', () => {
    const missing = change(openPayload(), (d) => {
      d.mover = null;
      for (const r of d.runners) r.mover = false;
    });
    expect(marketSteps([{ payload: openPayload() }, { payload: missing }])[1]).toEqual([]);
  });
});

describe('runner.deduction', () => {
  it('gives the deductions of a late scratching with the scratched runner, once', () => {
    const scratched = change(openPayload(), (d) => {
      Object.assign(runner(d, 8), {
        is_scratched: true,
        scratch_time: 1752712800,
        deduction: { win: 2, place: 6 },
      });
    });
    const raised = change(scratched, (d) => {
      runner(d, 8).deduction = { win: 3, place: 6 };
    });
    const steps = marketSteps([
      { payload: openPayload() },
      { payload: scratched },
      { payload: change(scratched, (d) => (d.race.track_condition = 'Soft6')) },
      { payload: raised },
    ]);
    expect(steps.slice(1)).toEqual([
      [{ type: 'runner.deduction', data: { race, runner: R[8], win: 2, place: 6, previous: null } }],
      [],
      [
        {
          type: 'runner.deduction',
          data: { race, runner: R[8], win: 3, place: 6, previous: { win: 2, place: 6 } },
        },
      ],
    ]);
  });

  it('ignores a zero record and a deduction on a runner that is not scratched', () => {
    const odd = change(openPayload(), (d) => {
      runner(d, 8).deduction = { win: 4, place: 2 };
      Object.assign(runner(d, 7), { is_scratched: true, deduction: { win: 0, place: 0 } });
    });
    expect(marketSteps([{ payload: openPayload() }, { payload: odd }])[1]).toEqual([]);
  });
});

describe('pool.total', () => {
  const win = (d: Loose) => d.tote_pools.find((p: Loose) => p.product_type === 'Win');

  it('announces the highest milestone a pool passed, from the real Win pool', () => {
    const at = (total: number) => change(openPayload(), (d) => (win(d).total = total));
    const steps = marketSteps([{ payload: at(4000) }, { payload: at(9151.38) }, { payload: at(9000) }]);
    expect(steps[1]).toEqual([
      {
        type: 'pool.total',
        data: { race, pool: 'Win', milestone: 5000, total: 9151.38, previousTotal: 4000, status: 'CLOSED' },
      },
    ]);
    expect(steps[2]).toEqual([]);
  });

  it('does not take a pool seen for the first time as a milestone passed', () => {
    const without = change(
      openPayload(),
      (d) => (d.tote_pools = d.tote_pools.filter((p: Loose) => p !== win(d))),
    );
    expect(marketSteps([{ payload: without }, { payload: openPayload() }])[1]).toEqual([]);
  });
});

describe('market.big_bet', () => {
  // A selection of this race's runner `n` at `position`, and this race's leg, as the events carry them.
  const pick = (position: number, n: number) => ({
    position,
    runnerNumber: n,
    name: R[n]!.name,
    entrantId: R[n]!.entrantId,
    inField: true,
  });
  const leg = (selections: ReturnType<typeof pick>[]) => ({
    raceNumber: 1,
    raceName: 'PRYDA HANDICAP 1700',
    meetingName: 'Awapuni Synthetic',
    thisRace: true,
    selections,
  });
  const withBets = (big: Loose[] | null, biggest: Loose | null = null) =>
    change(openPayload(), (d) => {
      d.big_bets = big;
      d.biggest_bet = biggest;
    });
  const b1 = bet('Win', 5000, '2025-07-17T00:41:12.5Z', [4], 4.2);
  const b2 = bet('Trifecta', 12000, '2025-07-17T00:44:00Z', [1, 7, 2]);
  const small = bet('Place', 600, '2025-07-17T00:45:00Z', [5], 1.8);

  it('reports each new bet over the threshold once, with its runners', () => {
    const steps = marketSteps([
      { payload: withBets([]) },
      { payload: withBets([b1], b1) },
      { payload: withBets([b2, b1], b2) },
      { payload: withBets([small, b2, b1], b2) },
    ]);
    expect(steps.slice(1)).toEqual([
      [
        {
          type: 'market.big_bet',
          data: {
            race,
            product: 'Win',
            stake: 5000,
            odds: 4.2,
            placedAt: '2025-07-17T00:41:12.500Z',
            selections: [pick(1, 4)],
            legs: [leg([pick(1, 4)])],
            biggest: true,
          },
        },
      ],
      [
        {
          type: 'market.big_bet',
          data: {
            race,
            product: 'Trifecta',
            stake: 12000,
            odds: null,
            placedAt: '2025-07-17T00:44:00.000Z',
            selections: [pick(1, 1), pick(2, 7), pick(3, 2)],
            legs: [leg([pick(1, 1), pick(2, 7), pick(3, 2)])],
            biggest: true,
          },
        },
      ],
      [],
    ]);
  });

  it('takes nothing for new while the previous payload listed no bets (options just turned on)', () => {
    const steps = marketSteps([{ payload: withBets(null) }, { payload: withBets([b2, b1], b2) }]);
    expect(steps[1]).toEqual([]);
  });

  it('does not take a bet older than the listed ones for new (it scrolled out of a full list)', () => {
    const steps = marketSteps([{ payload: withBets([b2]) }, { payload: withBets([b2, b1]) }]);
    expect(steps[1]).toEqual([]);
  });
});

describe('market.money_flow', () => {
  const minute = 60_000;
  const t0 = Date.parse('2025-07-17T00:30:00Z');
  // The real tracker's rows of Ballinran (#7) hold 4 %; move `points` of hold to it from Ruji (#4, 16 %).
  const shifted = (points: number) =>
    change(openPayload(), (d) => {
      const rows = d.money_tracker.entrants;
      rows.find((r: Loose) => r.entrant_id === R[7]!.entrantId).hold_percentage += points;
      rows.find(
        (r: Loose) => r.entrant_id === R[4]!.entrantId && r.hold_percentage >= points,
      ).hold_percentage -= points;
      d.race.track_condition = `step ${points}`; // so each step is a change even when shares are equal
    });

  it('reports a share that moves by the threshold within the window, from the real tracker', () => {
    const steps = marketSteps([
      { payload: shifted(0), at: t0 },
      { payload: shifted(1), at: t0 + minute },
      { payload: shifted(3), at: t0 + 4 * minute },
      { payload: shifted(6), at: t0 + 8 * minute },
      { payload: shifted(7), at: t0 + 9 * minute },
    ]);
    expect(steps.map((s) => s.filter((e) => e.type === 'market.money_flow'))).toEqual([
      [],
      [],
      [],
      [
        {
          type: 'market.money_flow',
          data: {
            race,
            runner: R[4],
            entrant: inField(4),
            from: 15,
            to: 10,
            changePoints: -5,
            direction: 'against',
            window: { minutes: 10, from: '2025-07-17T00:31:00.000Z', to: '2025-07-17T00:38:00.000Z' },
          },
        },
        {
          type: 'market.money_flow',
          data: {
            race,
            runner: R[7],
            entrant: inField(7),
            from: 5,
            to: 10,
            changePoints: 5,
            direction: 'for',
            window: { minutes: 10, from: '2025-07-17T00:31:00.000Z', to: '2025-07-17T00:38:00.000Z' },
          },
        },
      ],
      [],
    ]);
  });

  it('does not count a share seen before the window', () => {
    const steps = marketSteps([
      { payload: shifted(0), at: t0 },
      { payload: shifted(1), at: t0 + minute },
      { payload: shifted(6), at: t0 + 12 * minute },
    ]);
    expect(steps.flat()).toEqual([]);
  });
});

describe('market events and partner-only fields', () => {
  it('carry no member the spec restricts to partners, so public subscribers get them whole', () => {
    const open = openPayload();
    const t = (m: number) => new Date(Date.parse('2025-07-17T00:30:00Z') + m * 60_000).toISOString();
    const first = change(withFlucs(open, 4, [[t(0), 5]]), (d) => {
      d.big_bets = [];
      d.mover = { ...d.mover, entrant_id: R[4]!.entrantId };
      d.tote_pools.find((p: Loose) => p.product_type === 'Win').total = 4000;
    });
    const second = change(
      withFlucs(open, 4, [
        [t(0), 5],
        [t(5), 3],
      ]),
      (d) => {
        d.big_bets = [bet('Win', 5000, t(4), [4], 4.2)];
        Object.assign(runner(d, 8), { is_scratched: true, deduction: { win: 2, place: 6 } });
        for (const row of d.money_tracker.entrants)
          if (row.entrant_id === R[4]!.entrantId) row.hold_percentage += 3;
      },
    );
    const at = Date.parse(t(6));
    const events = marketSteps([
      { payload: first, at },
      { payload: change(first, (d) => (d.race.track_condition = 'Soft6')), at: at + 1 },
      { payload: second, at: at + 60_000 },
    ]).flat();
    expect(new Set(events.map((e) => e.type))).toEqual(
      new Set([
        'odds.plunge',
        'race.mover_changed',
        'runner.deduction',
        'market.big_bet',
        'market.money_flow',
        'pool.total',
      ]),
    );
    const restricted = new Set([...RESTRICTED_ENTRANT_FIELDS, ...RESTRICTED_RACE_FIELDS]);
    const keys = (v: unknown): string[] =>
      Array.isArray(v)
        ? v.flatMap(keys)
        : v !== null && typeof v === 'object'
          ? Object.entries(v).flatMap(([k, x]) => [k, ...keys(x)])
          : [];
    for (const e of events) {
      expect(keys(e.data).filter((k) => restricted.has(k))).toEqual([]);
      expect(redactValue(e.data)).toBe(e.data);
    }
  });
});
