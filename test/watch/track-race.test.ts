import { isEventType } from '@racewire/client/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RESTRICTED_ENTRANT_FIELDS, RESTRICTED_RACE_FIELDS } from '../../src/events/restricted-fields.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { detectEvents } from '../../src/watch/detect/detect.js';
import { runnersOf } from '../../src/watch/detect/detect-context.js';
import { favouriteOf } from '../../src/watch/detect/detect-odds.js';
import { normaliseEvent } from '../../src/watch/track/normalise.js';
import {
  type RaceDocument,
  resumedState,
  type TrackOptions,
  trackRace,
} from '../../src/watch/track/track-race.js';
import { mutate, mutationArb } from './mutations.js';
import { change, type Loose, MEETING_ID, openPayload, RACE_ID, realPayload, runner } from './support.js';

/** When these steps are observed: the payload's own generated time. */
const NOW = Date.parse('2025-07-17T00:40:00Z');

const snapshotOf = (payload = openPayload()) => {
  const r = trackRace(undefined, payload, NOW, { raceId: RACE_ID });
  if (r.outcome.kind !== 'changed' || !r.state) throw new Error('expected a snapshot');
  return r.state.document;
};

/** One step from `prev`, as a race state rebuilt from that document alone takes it. */
const stepFrom = (prev: RaceDocument, payload: EventResponse, opts: TrackOptions = {}) =>
  trackRace(resumedState(prev), payload, NOW, opts);

describe('trackRace', () => {
  it('answers a first observation with a snapshot and no events', () => {
    const result = trackRace(undefined, realPayload(), NOW, { raceId: RACE_ID });
    expect(result).toEqual({
      state: {
        document: normaliseEvent(realPayload()),
        trust: { generatedTime: realPayload().header.generated_time, pending: {} },
        money: new Map(),
        favourite: expect.any(String),
      },
      entries: [{ kind: 'snapshot', document: normaliseEvent(realPayload()) }],
      outcome: { kind: 'changed', status: 'Final', dividends: 'final' },
    });
  });

  it('answers unchanged when only the envelope changed', () => {
    const prev = snapshotOf(realPayload());
    const next = realPayload();
    next.header.generated_time = '2025-07-17T11:17:04.000000000Z';
    next.params = { enc: 'json' };
    const result = stepFrom(prev, next, { raceId: RACE_ID });
    expect(result).toMatchObject({
      state: { document: prev, trust: { generatedTime: '2025-07-17T11:17:04.000000000Z', pending: {} } },
      entries: [],
      outcome: { kind: 'unchanged' },
    });
    expect(result.outcome).not.toHaveProperty('held');
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
      const result = stepFrom(prev, change(openPayload(), edit), { raceId: RACE_ID });
      expect(result.outcome).toMatchObject({ kind: 'rejected', code });
      expect(result.entries).toEqual([]);
      expect(result.state?.document).toBe(prev);
    }
    const first = trackRace(undefined, change(openPayload(), cases[0]![0]), NOW, { raceId: RACE_ID });
    expect(first).toMatchObject({ state: undefined, outcome: { kind: 'rejected', code: 'runners_missing' } });
  });

  it('puts a patch first, then one event entry per event with the meeting and race ids', () => {
    const prev = snapshotOf();
    const result = stepFrom(
      prev,
      change(openPayload(), (d) => {
        d.race.status = 'Closed';
      }),
      { raceId: RACE_ID },
    );
    expect(result.outcome.kind).toBe('changed');
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

  it("judges the favourite against the state's, in its place before the market events (docs/events.md#order)", () => {
    const prev = snapshotOf();
    const favourite = favouriteOf(prev)!;
    // The state last reported another runner (after a restart, the log's), as the document's does not say.
    const reported = [...runnersOf(prev).keys()].find((key) => key !== favourite.key)!;
    const state = { ...resumedState(prev), favourite: reported };
    const next = change(openPayload(), (d) => {
      d.tote_pools[0].total = 10_500; // past the 10,000 milestone
    });
    const result = trackRace(state, next, NOW, { raceId: RACE_ID });
    const events = result.entries.flatMap((e) => (e.kind === 'event' ? [e.event] : []));
    expect(events.map((e) => e.type)).toEqual(['race.favourite_changed', 'pool.total']);
    expect(events[0]?.data).toMatchObject({
      from: { entrantId: runnersOf(prev).get(reported)?.entrant_id },
      to: { entrantId: favourite.runner.entrant_id },
    });
    expect(result.state?.favourite).toBe(favourite.key);
  });

  it("judges no favourite while a runner's claim is held, and keeps the one last reported", () => {
    const prev = snapshotOf();
    const favourite = favouriteOf(prev)!;
    const reported = [...runnersOf(prev).keys()].find((key) => key !== favourite.key)!;
    const state = { ...resumedState(prev), favourite: reported };
    const next = change(openPayload(), (d) => {
      d.runners = d.runners.filter((r: Loose) => r.entrant_id !== runnersOf(prev).get(reported)?.entrant_id);
    });
    const result = trackRace(state, next, NOW, { raceId: RACE_ID });
    expect(result.outcome).toMatchObject({
      kind: 'unchanged',
      pending: true,
      held: [`/runners/${reported}`],
    });
    expect(result.state?.favourite).toBe(reported);
  });

  it('sends a snapshot instead of a patch larger than the configured share of the document', () => {
    const prev = snapshotOf();
    const next = change(openPayload(), (d) => {
      runner(d, 1).odds.fixed_win = 9;
    });
    const result = stepFrom(prev, next, { raceId: RACE_ID, snapshotFraction: 0 });
    expect(result.entries.map((e) => e.kind)).toEqual(['snapshot', 'event']);
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
        const result = stepFrom(
          prev,
          change(openPayload(), (d) => {
            for (const e of edits) e(d);
          }),
          { raceId: RACE_ID },
        );
        const events = result.entries.filter((e) => e.kind === 'event');
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
    expect(detectEvents(prev, next).events).toEqual([]);
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
    expect(detectEvents(prev, next).events.map((e) => e.type)).toEqual(['odds.changed']);
  });

  it('reports an unknown status as data', () => {
    const prev = normaliseEvent(openPayload());
    const next = normaliseEvent(
      change(openPayload(), (d) => {
        d.race.status = 'Postponed';
      }),
    );
    expect(detectEvents(prev, next).events).toMatchObject([
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
    expect(detectEvents(prev, next, { observedAt }).events).toMatchObject([
      {
        type: 'runner.scratched',
        data: { scratchTime: '2025-07-17T00:40:00.000Z', scratchTimeSource: 'observed', late: true },
      },
    ]);
    expect(detectEvents(prev, next).events).toMatchObject([
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
      detectEvents(prev, next).events.map((e) => [
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
        const prev = trackRace(undefined, a, 1752713000000);
        if (!prev.state) return;
        const result = trackRace(resumedState(prev.state.document), mutate(a, second), 1752713000000);
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
