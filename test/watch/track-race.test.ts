import { isEventType } from '@racewire/client/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESTRICTED_ENTRANT_FIELDS, RESTRICTED_RACE_FIELDS } from '../../src/events/restricted-fields.js';
import { detectEvents } from '../../src/watch/detect.js';
import { normaliseEvent } from '../../src/watch/normalise.js';
import { trackRace } from '../../src/watch/track-race.js';
import { mutate, mutationArb } from './mutations.js';
import { change, type Loose, MEETING_ID, openPayload, RACE_ID, realPayload, runner } from './support.js';

const snapshotOf = (payload = openPayload()) => {
  const r = trackRace(undefined, payload, { raceId: RACE_ID });
  if (r.kind !== 'changed') throw new Error('expected a snapshot');
  return r.document;
};

describe('trackRace', () => {
  it('answers a first observation with a snapshot and no events', () => {
    const result = trackRace(undefined, realPayload(), { raceId: RACE_ID });
    expect(result).toEqual({
      kind: 'changed',
      document: normaliseEvent(realPayload()),
      entries: [{ kind: 'snapshot', document: normaliseEvent(realPayload()) }],
      trust: { generatedTime: realPayload().header.generated_time, pending: {} },
      held: [],
    });
  });

  it('answers unchanged when only the envelope changed', () => {
    const prev = snapshotOf(realPayload());
    const next = realPayload();
    next.header.generated_time = '2025-07-17T11:17:04.000000000Z';
    next.params = { enc: 'json' };
    expect(trackRace(prev, next, { raceId: RACE_ID })).toEqual({
      kind: 'unchanged',
      trust: { generatedTime: '2025-07-17T11:17:04.000000000Z', pending: {} },
      held: [],
    });
  });

  it('rejects runners: null, an emptied runners list and an upstream error with no entries', () => {
    const prev = snapshotOf();
    const cases: [Loose, string][] = [
      [(d: Loose) => (d.runners = null), 'runners_missing'],
      [(d: Loose) => (d.runners = []), 'runners_vanished'],
      [(d: Loose) => (d.runners = d.runners.slice(0, 5)), 'runners_truncated'],
      [(d: Loose) => (d.error = 'upstream failure'), 'upstream_error'],
    ];
    for (const [edit, code] of cases) {
      const result = trackRace(prev, change(openPayload(), edit), { raceId: RACE_ID });
      expect(result).toMatchObject({ kind: 'rejected', code });
      expect(result).not.toHaveProperty('entries');
    }
    expect(trackRace(undefined, change(openPayload(), cases[0]![0]), { raceId: RACE_ID })).toMatchObject({
      kind: 'rejected',
      code: 'runners_missing',
    });
  });

  it('puts a patch first, then one event entry per event with the meeting and race ids', () => {
    const prev = snapshotOf();
    const result = trackRace(
      prev,
      change(openPayload(), (d) => {
        d.race.status = 'Closed';
      }),
      { raceId: RACE_ID },
    );
    expect(result.kind).toBe('changed');
    if (result.kind !== 'changed') return;
    expect(result.entries.map((e) => e.kind)).toEqual(['patch', 'event']);
    expect(result.entries[0]).toEqual({
      kind: 'patch',
      ops: [{ op: 'replace', path: '/race/status', value: 'Closed' }],
    });
    expect(result.entries[1]).toMatchObject({
      kind: 'event',
      event: {
        type: 'race.status_changed',
        meetingId: MEETING_ID,
        raceId: RACE_ID,
        data: { from: 'Open', to: 'Closed' },
      },
    });
  });

  it('sends a snapshot instead of a patch larger than the configured share of the document', () => {
    const prev = snapshotOf();
    const next = change(openPayload(), (d) => {
      runner(d, 1).odds.fixed_win = 9;
    });
    const result = trackRace(prev, next, { raceId: RACE_ID, snapshotFraction: 0 });
    expect(result.kind === 'changed' && result.entries.map((e) => e.kind)).toEqual(['snapshot', 'event']);
  });
});

describe('detectEvents on partial or odd payloads', () => {
  it('invents no events when optional members go missing', () => {
    const partial = fc.constantFrom<(d: Loose) => void>(
      (d) => delete d.race.weather,
      (d) => delete d.race.track_condition,
      (d) => delete d.race.protest,
      (d) => delete runner(d, 2).odds,
      (d) => (runner(d, 3).odds = null),
      (d) => delete runner(d, 4).jockey,
      (d) => delete d.tote_pools,
      (d) => delete d.money_tracker,
      (d) => delete d.dividends,
      (d) => delete runner(d, 5).flucs_with_timestamp,
      (d) => d.runners.reverse(),
    );
    fc.assert(
      fc.property(fc.array(partial, { minLength: 1, maxLength: 5 }), (edits) => {
        const prev = snapshotOf();
        const result = trackRace(
          prev,
          change(openPayload(), (d) => {
            for (const e of edits) e(d);
          }),
          { raceId: RACE_ID },
        );
        const events = result.kind === 'changed' ? result.entries.filter((e) => e.kind === 'event') : [];
        expect(events).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('ignores price changes of a scratched runner', () => {
    const prev = normaliseEvent(
      change(openPayload(), (d) => {
        runner(d, 7).is_scratched = true;
      }),
    );
    const next = normaliseEvent(
      change(openPayload(), (d) => {
        runner(d, 7).is_scratched = true;
        runner(d, 7).odds.fixed_win = 2;
      }),
    );
    expect(detectEvents(prev, next)).toEqual([]);
  });

  it('names no favourite while two runners share the shortest price and upstream flags none', () => {
    const noFlags = (d: Loose) => {
      for (const r of d.runners) r.favourite = false;
    };
    const prev = normaliseEvent(change(openPayload(), noFlags));
    const next = normaliseEvent(
      change(openPayload(), (d) => {
        noFlags(d);
        runner(d, 1).odds.fixed_win = 4.2; // level with Ruji
      }),
    );
    expect(detectEvents(prev, next).map((e) => e.type)).toEqual(['odds.changed']);
  });

  it('reports an unknown status as data', () => {
    const prev = normaliseEvent(openPayload());
    const next = normaliseEvent(
      change(openPayload(), (d) => {
        d.race.status = 'Postponed';
      }),
    );
    expect(detectEvents(prev, next)).toMatchObject([
      { type: 'race.status_changed', data: { from: 'Open', to: 'Postponed' } },
    ]);
  });

  it('uses the observation time for a scratching without an upstream time', () => {
    const prev = normaliseEvent(openPayload());
    const next = normaliseEvent(
      change(openPayload(), (d) => {
        Object.assign(runner(d, 2), { is_scratched: true, scratch_time: 0, scr_time: null });
      }),
    );
    const observedAt = Date.parse('2025-07-17T00:40:00Z');
    expect(detectEvents(prev, next, { observedAt })).toMatchObject([
      {
        type: 'runner.scratched',
        data: { scratchTime: '2025-07-17T00:40:00.000Z', scratchTimeSource: 'observed', late: true },
      },
    ]);
    expect(detectEvents(prev, next)).toMatchObject([
      { type: 'runner.scratched', data: { scratchTime: null, scratchTimeSource: 'unknown', late: false } },
    ]);
  });

  it('reports runners added, removed and a change of rider', () => {
    const prev = normaliseEvent(openPayload());
    const next = normaliseEvent(
      change(openPayload(), (d) => {
        const extra = {
          ...structuredClone(runner(d, 8)),
          entrant_id: 'e-9',
          runner_number: 9,
          name: 'Late Entry',
        };
        d.runners = d.runners.filter((r: Loose) => r.runner_number !== 6);
        d.runners.push(extra);
        runner(d, 2).jockey = 'Opie Bosson';
      }),
    );
    expect(
      detectEvents(prev, next).map((e) => [
        e.type,
        'runner' in e.data ? (e.data.runner?.runnerNumber ?? 0) : 0,
      ]),
    ).toEqual([
      ['runner.jockey_changed', 2],
      ['runner.removed', 6],
      ['runner.added', 9],
    ]);
  });
});

describe('trackRace on random race-day changes', () => {
  it('never throws, and its events are known types without partner-only fields', () => {
    const restricted = new Set([...RESTRICTED_RACE_FIELDS, ...RESTRICTED_ENTRANT_FIELDS]);
    const keys = (v: unknown): string[] =>
      Array.isArray(v)
        ? v.flatMap(keys)
        : v !== null && typeof v === 'object'
          ? Object.entries(v).flatMap(([k, x]) => [k, ...keys(x)])
          : [];
    const muts = fc.array(mutationArb, { maxLength: 6 });
    fc.assert(
      fc.property(muts, muts, (first, second) => {
        const a = mutate(realPayload(), first);
        const prev = trackRace(undefined, a);
        if (prev.kind !== 'changed') return;
        const result = trackRace(prev.document, mutate(a, second), { observedAt: 1752713000000 });
        if (result.kind !== 'changed') return;
        for (const entry of result.entries) {
          if (entry.kind !== 'event') continue;
          expect(isEventType(entry.event.type)).toBe(true);
          expect(keys(entry.event.data).filter((k) => restricted.has(k))).toEqual([]);
        }
      }),
      { numRuns: 80 },
    );
  });
});
