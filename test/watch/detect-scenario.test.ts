/**
 * The real Awapuni R1 payload, taken back to before the jump and replayed through a scripted race day:
 * every step goes through trackRace (assess, normalise, diff, detect) and must give exactly these events.
 */

import type { DividendRow, Placing, RaceContext, RunnerRef } from '@racewire/client/protocol';
import { describe, expect, it } from 'vitest';
import { RESTRICTED_ENTRANT_FIELDS, RESTRICTED_RACE_FIELDS } from '../../src/events/restricted-fields.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { type RaceDocument, resumedState, trackRace } from '../../src/watch/track/track-race.js';
import {
  ADVERTISED,
  change,
  type Loose,
  MEETING_ID,
  openPayload,
  RACE_ID,
  realPayload,
  runner,
} from './support.js';

const race = (status: string, advertisedStart = '2025-07-17T00:50:00.000Z'): RaceContext => ({
  raceId: RACE_ID,
  meetingId: MEETING_ID,
  meetingName: 'Awapuni Synthetic',
  raceNumber: 1,
  raceName: 'PRYDA HANDICAP 1700',
  category: 'T',
  country: 'NZ',
  advertisedStart,
  status,
});

const R: Record<number, RunnerRef> = {
  1: { entrantId: '61181b8c-a540-43a8-900c-83ebe680e218', runnerNumber: 1, name: 'Tickford', barrier: 7 },
  2: { entrantId: 'a8cc87d4-5a53-47b2-bb26-58d555aac7c0', runnerNumber: 2, name: 'Frosbie', barrier: 2 },
  3: {
    entrantId: '677c1727-e256-48a4-9016-a07e10d65edc',
    runnerNumber: 3,
    name: 'Dealers Choice',
    barrier: 6,
  },
  4: { entrantId: '7346bd2c-c03d-41c3-bcb9-2b085c4e72cd', runnerNumber: 4, name: 'Ruji', barrier: 1 },
  5: { entrantId: 'f2f0758e-2e1f-4f14-aece-0b894334bcf8', runnerNumber: 5, name: 'Starpello', barrier: 3 },
  6: {
    entrantId: '8f3f3ac0-5689-4ec6-a560-c8b451bb383d',
    runnerNumber: 6,
    name: 'Keepitinyourwallet',
    barrier: 4,
  },
  7: { entrantId: '00e07f98-6cba-4018-be48-233a677f42e1', runnerNumber: 7, name: 'Ballinran', barrier: 5 },
  8: { entrantId: '8536e165-37a6-4ee0-94be-21544b10217c', runnerNumber: 8, name: 'Flor De Cana', barrier: 8 },
};

const placing = (position: number, n: number, marginLength: number | null): Placing => ({
  position,
  entrantId: R[n]!.entrantId,
  runnerNumber: n,
  name: R[n]!.name,
  marginLength,
});

const div = (
  id: string,
  productName: string,
  description: string,
  status: string,
  dividend: number,
  poolSize: number,
  change: 'new' | 'changed' = 'new',
  previousDividend: number | null = null,
): DividendRow => ({
  id,
  productName,
  tote: 'NZ',
  status,
  dividend,
  poolSize,
  positions: description.split(':').map((n, i) => ({ runnerNumber: Number(n), position: i + 1 })),
  description,
  change,
  previousDividend,
});

const real = realPayload().data as Loose;
const realDividends = (status: string) => real.dividends.filter((d: Loose) => d.status === status);

/**
 * Runs one step and returns its events as {type, data}. Each scripted change is the truth, so every claim is
 * believed at once (confirmation by the trust model is tested in untrusted-payloads.test.ts).
 */
function step(prev: RaceDocument, payload: EventResponse) {
  const result = trackRace(resumedState(prev), payload, Date.parse('2025-07-17T00:30:00Z'), {
    raceId: RACE_ID,
    confirmPayloads: 1,
    confirmMs: 0,
  });
  if (result.outcome.kind !== 'changed' || !result.state)
    throw new Error(`expected a change, got ${result.outcome.kind}`);
  expect(result.entries[0]!.kind).toBe('patch');
  const events = result.entries.flatMap((e) =>
    e.kind === 'event' ? [{ type: e.event.type, data: e.event.data as unknown }] : [],
  );
  return { doc: result.state.document, events, entries: result.entries };
}

/** A first observation: a snapshot, whose document the steps start from. */
function snapshot(payload: EventResponse, opts: { raceId?: string } = {}) {
  const result = trackRace(undefined, payload, Date.parse('2025-07-17T00:30:00Z'), opts);
  if (!result.state) throw new Error('no snapshot');
  return { ...result, document: result.state.document };
}

function hasRestrictedKey(value: unknown): string | undefined {
  if (Array.isArray(value)) return value.map(hasRestrictedKey).find(Boolean);
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    if (RESTRICTED_RACE_FIELDS.has(k) || RESTRICTED_ENTRANT_FIELDS.has(k)) return k;
    const inner = hasRestrictedKey(v);
    if (inner) return inner;
  }
  return undefined;
}

describe('a scripted race day on the real payload', () => {
  it('emits exactly the expected events at each step, and never a partner-only field', () => {
    const all: unknown[] = [];
    const first = snapshot(openPayload(), { raceId: RACE_ID });
    expect(first.outcome.kind).toBe('changed');
    expect(first.entries).toEqual([{ kind: 'snapshot', document: first.document }]);

    // 1. Two scratchings: one 2 h before the start (late), one the day before (not late).
    let p = change(openPayload(), (d) => {
      Object.assign(runner(d, 8), { is_scratched: true, scratch_time: ADVERTISED - 2 * 3600 });
      Object.assign(runner(d, 3), { is_scratched: true, scratch_time: ADVERTISED - 20 * 3600 });
    });
    let s = step(first.document, p);
    all.push(...s.events);
    expect(s.events).toEqual([
      {
        type: 'runner.scratched',
        data: {
          race: race('Open'),
          runner: R[3],
          scratchTime: '2025-07-16T04:50:00.000Z',
          scratchTimeSource: 'upstream',
          late: false,
        },
      },
      {
        type: 'runner.scratched',
        data: {
          race: race('Open'),
          runner: R[8],
          scratchTime: '2025-07-16T22:50:00.000Z',
          scratchTimeSource: 'upstream',
          late: true,
        },
      },
    ]);

    // 2. Dealers Choice reinstated; Tickford firms and becomes favourite; Ruji drifts; a small pool move.
    p = change(p, (d) => {
      Object.assign(runner(d, 3), { is_scratched: false, scratch_time: 0 });
      Object.assign(runner(d, 1), { favourite: true });
      runner(d, 1).odds.fixed_win = 4.4;
      Object.assign(runner(d, 4), { favourite: false });
      runner(d, 4).odds.fixed_win = 4.8;
      runner(d, 5).odds.pool_win = 3.9;
    });
    s = step(s.doc, p);
    all.push(...s.events);
    const odds = (
      n: number,
      market: string,
      from: number,
      to: number,
      changePct: number,
      significant: boolean,
    ) => ({
      type: 'odds.changed',
      data: {
        race: race('Open'),
        runner: R[n],
        market,
        from,
        to,
        changePct,
        direction: to < from ? 'firming' : 'drifting',
        significant,
      },
    });
    expect(s.events).toEqual([
      { type: 'runner.reinstated', data: { race: race('Open'), runner: R[3] } },
      odds(1, 'fixed_win', 5, 4.4, -12, true),
      odds(4, 'fixed_win', 4.2, 4.8, 14.3, true),
      {
        type: 'odds.pools_changed',
        data: {
          race: race('Open'),
          changes: [
            {
              runner: R[5],
              market: 'pool_win',
              from: 3.8,
              to: 3.9,
              changePct: 2.6,
              direction: 'drifting',
              significant: false,
            },
          ],
        },
      },
      { type: 'race.favourite_changed', data: { race: race('Open'), from: R[4], to: R[1], price: 4.4 } },
    ]);

    // 3. The jump, interim placings and Interim dividends (Flor De Cana, scratched, is not placed).
    p = change(p, (d) => {
      d.race.status = 'Interim';
      d.race.actual_start = 1752713566;
      d.results = real.results.filter((r: Loose) => r.runner_number !== 8);
      d.dividends = realDividends('Interim');
    });
    s = step(s.doc, p);
    all.push(...s.events);
    const interimPlacings = [
      placing(1, 2, 0),
      placing(2, 4, 0.4),
      placing(3, 7, 2.3),
      placing(4, 6, 2.3),
      placing(5, 5, 4.3),
      placing(6, 1, 4.5),
      placing(8, 3, 7),
    ];
    expect(s.events).toEqual([
      { type: 'race.status_changed', data: { race: race('Interim'), from: 'Open', to: 'Interim' } },
      {
        type: 'race.jumped',
        data: { race: race('Interim'), actualStart: '2025-07-17T00:52:46.000Z', delaySeconds: 166 },
      },
      {
        type: 'race.results',
        data: { race: race('Interim'), kind: 'interim', results: interimPlacings, changes: [] },
      },
      {
        type: 'race.dividends',
        data: {
          race: race('Interim'),
          status: 'Interim',
          dividends: [
            div('fa28fdeb-ec51-5fa0-91bf-45e01045795c', 'Pool First4', '2:4:7:6', 'Interim', 1350.4, 4617.92),
            div('54fcaae8-a5c4-5b00-973a-5a6b84e25a88', 'Pool Place', '2', 'Interim', 1.7, 3923.51),
            div('04803ea1-9afa-58ac-bce7-35852ef7c3c2', 'Pool Place', '4', 'Interim', 1.9, 3923.51),
            div('8ae42ac4-9248-52cd-86dc-1430e8182acd', 'Pool Place', '7', 'Interim', 3.7, 3923.51),
            div('46c9a645-07a9-5bf3-ae00-9c286ce5d045', 'Pool Quinella', '2:4', 'Interim', 13.7, 5341.06),
            div('a64610b9-46bf-5e2c-b4c9-1f0baded94b2', 'Pool Trifecta', '2:4:7', 'Interim', 396.6, 7976.24),
            div('707afd87-9c56-594b-903d-fc93d11ed951', 'Pool Win', '2', 'Interim', 6.6, 9151.38),
          ],
        },
      },
    ]);

    // 4. A protest is lodged.
    p = change(p, (d) => {
      d.race.protest = true;
      d.race.protest_reason = 'Second v First: interference';
    });
    s = step(s.doc, p);
    all.push(...s.events);
    expect(s.events).toEqual([
      {
        type: 'race.protest',
        data: { race: race('Interim'), status: 'lodged', reason: 'Second v First: interference' },
      },
    ]);

    // 5. The protest is upheld: first and second swap.
    p = change(p, (d) => {
      d.race.protest = false;
      d.race.protest_reason = '';
      for (const r of d.results) {
        if (r.runner_number === 2) r.position = 2;
        else if (r.runner_number === 4) r.position = 1;
      }
    });
    s = step(s.doc, p);
    all.push(...s.events);
    const amended = [placing(1, 4, 0.4), placing(2, 2, null), ...interimPlacings.slice(2)];
    expect(s.events).toEqual([
      { type: 'race.protest', data: { race: race('Interim'), status: 'resolved', reason: null } },
      {
        type: 'race.results',
        data: {
          race: race('Interim'),
          kind: 'amended',
          results: amended,
          changes: [
            { entrantId: R[4]!.entrantId, runnerNumber: 4, name: 'Ruji', from: 2, to: 1 },
            { entrantId: R[2]!.entrantId, runnerNumber: 2, name: 'Frosbie', from: 1, to: 2 },
          ],
        },
      },
    ]);

    // 6. Final: placings confirmed, Final dividends arrive beside the Interim ones.
    p = change(p, (d) => {
      d.race.status = 'Final';
      d.dividends = [...realDividends('Final'), ...d.dividends];
    });
    s = step(s.doc, p);
    all.push(...s.events);
    expect(s.events).toEqual([
      { type: 'race.status_changed', data: { race: race('Final'), from: 'Interim', to: 'Final' } },
      { type: 'race.results', data: { race: race('Final'), kind: 'final', results: amended, changes: [] } },
      {
        type: 'race.dividends',
        data: {
          race: race('Final'),
          status: 'Final',
          dividends: [
            div('8645db62-5175-5eab-86bd-a1f62007976c', 'Pool First4', '2:4:7:6', 'Final', 1350.4, 4617.92),
            div('8e2e9e5b-d772-564e-a8d5-b9c16df0e39e', 'Pool Place', '2', 'Final', 1.7, 3923.51),
            div('6c1ec8d5-9cd1-5921-92d0-cade7ad8eb82', 'Pool Place', '4', 'Final', 1.9, 3923.51),
            div('1a3d451b-a62d-5ffd-b66f-6ecba4fe2e28', 'Pool Place', '7', 'Final', 3.7, 3923.51),
            div('6705b095-7ed7-56e6-8452-6fd61e9c469b', 'Pool Quinella', '2:4', 'Final', 13.7, 5341.06),
            div('c1979357-97e7-5a46-95b5-adfcbb5dbb2c', 'Pool Trifecta', '2:4:7', 'Final', 396.6, 7976.24),
            div('0a5425b5-a2c6-59cd-986f-b8d51f19979e', 'Pool Win', '2', 'Final', 6.6, 9151.38),
          ],
        },
      },
    ]);

    // 7. A Final dividend is corrected.
    p = change(p, (d) => {
      d.dividends.find((x: Loose) => x.id === '0a5425b5-a2c6-59cd-986f-b8d51f19979e').dividend = 6.8;
    });
    s = step(s.doc, p);
    all.push(...s.events);
    expect(s.events).toEqual([
      {
        type: 'race.dividends',
        data: {
          race: race('Final'),
          status: 'Final',
          dividends: [
            div(
              '0a5425b5-a2c6-59cd-986f-b8d51f19979e',
              'Pool Win',
              '2',
              'Final',
              6.8,
              9151.38,
              'changed',
              6.6,
            ),
          ],
        },
      },
    ]);

    expect(all).toHaveLength(18);
    expect(hasRestrictedKey(all)).toBeUndefined();
  });

  it('reports a start time put back and a new track condition', () => {
    const open = snapshot(openPayload());
    const s = step(
      open.document,
      change(openPayload(), (d) => {
        d.race.advertised_start = ADVERTISED + 300;
        d.race.track_condition = 'Heavy9';
      }),
    );
    const ctx = race('Open', '2025-07-17T00:55:00.000Z');
    expect(s.events).toEqual([
      {
        type: 'race.start_time_changed',
        data: {
          race: ctx,
          from: '2025-07-17T00:50:00.000Z',
          to: '2025-07-17T00:55:00.000Z',
          deltaSeconds: 300,
        },
      },
      { type: 'race.track_condition_changed', data: { race: ctx, from: 'Synthetic', to: 'Heavy9' } },
    ]);
  });

  it('reports an abandonment as a status change and an abandonment', () => {
    const open = snapshot(openPayload());
    const s = step(
      open.document,
      change(openPayload(), (d) => {
        d.race.status = 'Abandoned';
      }),
    );
    expect(s.events).toEqual([
      { type: 'race.status_changed', data: { race: race('Abandoned'), from: 'Open', to: 'Abandoned' } },
      { type: 'race.abandoned', data: { race: race('Abandoned'), from: 'Open' } },
    ]);
  });

  it('makes a tiny patch for an odds move with its new fluc on the 195 KB payload', () => {
    const before = snapshot(realPayload());
    const ts = '2025-07-17T00:53:00.000000000Z';
    const s = step(
      before.document,
      change(realPayload(), (d) => {
        const r = runner(d, 1);
        r.odds.fixed_win = 4.8;
        r.flucs.push(4.8);
        r.flucs_with_timestamp.last_six.push({ timestamp: ts, fluc: 4.8 });
      }),
    );
    const id = R[1]!.entrantId;
    const patch = s.entries[0]!;
    expect(patch).toEqual({
      kind: 'patch',
      ops: [
        {
          op: 'add',
          path: `/runners/${id}/flucs_with_timestamp/last_six/${ts}`,
          value: { timestamp: ts, fluc: 4.8 },
        },
        { op: 'add', path: `/runners/${id}/flucs/4`, value: 4.8 },
        { op: 'replace', path: `/runners/${id}/odds/fixed_win`, value: 4.8 },
      ],
    });
    const patchBytes = JSON.stringify(patch.kind === 'patch' ? patch.ops : []).length;
    const payloadBytes = JSON.stringify(realPayload()).length;
    expect(payloadBytes).toBeGreaterThan(190_000);
    expect(patchBytes).toBeLessThan(400);
    // For the report: bytes of this patch against the minified payload.
    console.info(`odds-only patch: ${patchBytes} bytes vs payload ${payloadBytes} bytes`);
  });
});
