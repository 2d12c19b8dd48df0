import { describe, expect, it } from 'vitest';
import {
  assessPayload,
  jsonSizeFloor,
  keyBy,
  normaliseEvent,
  toJsonValue,
} from '../../src/watch/track/normalise.js';
import { change, type Loose, RACE_ID, realPayload, runner } from './support.js';

const sortedJson = (items: unknown[]) => items.map((x) => JSON.stringify(x)).sort();

describe('normaliseEvent', () => {
  it('drops the envelope and keeps every member of data', () => {
    const payload = realPayload();
    const doc = normaliseEvent(payload);
    expect(Object.keys(doc).sort()).toEqual(Object.keys(payload.data).sort());
    expect(doc).not.toHaveProperty('header');
    expect(doc).not.toHaveProperty('params');
    expect(doc.race).toEqual(payload.data.race);
  });

  it('keys runners, results, dividends, tote pools and substitutions by identity', () => {
    const doc = normaliseEvent(realPayload()) as Loose;
    expect(Object.keys(doc.runners)).toHaveLength(8);
    expect(doc.runners['61181b8c-a540-43a8-900c-83ebe680e218'].odds).toEqual({
      fixed_win: 5,
      fixed_place: 1.8,
      pool_win: 4.4,
      pool_place: 1.5,
    });
    expect(doc.results['a8cc87d4-5a53-47b2-bb26-58d555aac7c0'].position).toBe(1);
    expect(Object.keys(doc.dividends)).toHaveLength(14);
    expect(doc.dividends['0a5425b5-a2c6-59cd-986f-b8d51f19979e'].status).toBe('Final');
    expect(Object.keys(doc.tote_pools).sort()).toEqual([
      'EarlyQuadrella',
      'FirstFour',
      'Place',
      'Quinella',
      'Trifecta',
      'Win',
    ]);
    expect(Object.keys(doc.substitutions)).toEqual(['Pool Win|NZ|f2f0758e-2e1f-4f14-aece-0b894334bcf8']);
  });

  it('loses no record: every array item of the payload is in the document', () => {
    const payload = realPayload();
    const data = payload.data as Loose;
    const doc = normaliseEvent(payload) as Loose;
    for (const key of ['runners', 'results', 'dividends', 'tote_pools', 'substitutions']) {
      const values = Object.values(doc[key]) as Loose[];
      const restored =
        key === 'runners'
          ? values.map((r) => ({
              ...r,
              flucs_with_timestamp: {
                ...r.flucs_with_timestamp,
                last_six: Object.values(r.flucs_with_timestamp.last_six),
              },
            }))
          : values;
      expect(sortedJson(restored)).toEqual(sortedJson(data[key]));
    }
    const rows = Object.values(doc.money_tracker.entrants).flat();
    expect(rows).toHaveLength(76);
    expect(sortedJson(rows)).toEqual(sortedJson(data.money_tracker.entrants));
  });

  it('groups money tracker rows by entrant, keeping each entrant’s rows in order', () => {
    const data = realPayload().data as Loose;
    const doc = normaliseEvent(realPayload()) as Loose;
    const id = '8f3f3ac0-5689-4ec6-a560-c8b451bb383d';
    expect(doc.money_tracker.entrants[id]).toEqual(
      data.money_tracker.entrants.filter((r: Loose) => r.entrant_id === id),
    );
    expect(doc.money_tracker.entrants[id]).toHaveLength(10);
  });

  it('keys last_six flucs by timestamp and keeps plain flucs as the list', () => {
    const doc = normaliseEvent(realPayload()) as Loose;
    const tickford = doc.runners['61181b8c-a540-43a8-900c-83ebe680e218'];
    expect(tickford.flucs).toEqual([8.5, 6, 4.6, 5]);
    expect(tickford.flucs_with_timestamp.last_six['2025-07-17T00:21:19.028381759Z']).toEqual({
      timestamp: '2025-07-17T00:21:19.028381759Z',
      fluc: 6,
    });
  });

  it('gives the same document for runners in another order', () => {
    const a = realPayload();
    const b = change(a, (d) => d.runners.reverse());
    expect(normaliseEvent(b)).toEqual(normaliseEvent(a));
  });

  it('removes undefined members and keeps unknown ones as data', () => {
    const doc = normaliseEvent(
      change(realPayload(), (d) => {
        d.race.weather = undefined;
        d.something_new = { nested: [1, undefined, 3], gone: undefined };
      }),
    ) as Loose;
    expect('weather' in doc.race).toBe(false);
    expect(doc.something_new).toEqual({ nested: [1, null, 3] });
  });

  it('suffixes a repeated identity instead of overwriting the record', () => {
    expect(
      keyBy([{ id: 'a', n: 1 }, { id: 'a', n: 2 }, { n: 3 }, { id: 'a#2', n: 4 }], (r) => r.id as string),
    ).toEqual({
      a: { id: 'a', n: 1 },
      'a#2': { id: 'a', n: 2 },
      '#2': { n: 3 },
      'a#2#2': { id: 'a#2', n: 4 },
    });
  });

  it('keys records sharing an identity by their content, so listing them in another order changes nothing', () => {
    const rows = [
      { id: 'a', price: 3.9 },
      { id: 'b', price: 5 },
      { id: 'a', price: 2.1 },
    ];
    const keyed = keyBy(rows, (r) => r.id as string);
    expect(keyed).toEqual({
      a: { id: 'a', price: 2.1 },
      'a#2': { id: 'a', price: 3.9 },
      b: { id: 'b', price: 5 },
    });
    expect(keyBy([...rows].reverse(), (r) => r.id as string)).toEqual(keyed);
  });

  it('drops __proto__ members rather than letting them set a prototype', () => {
    const value = toJsonValue(JSON.parse('{"a":1,"__proto__":{"polluted":true}}')) as Loose;
    expect(value).toEqual({ a: 1 });
    expect(value.polluted).toBeUndefined();
  });
});

describe('assessPayload', () => {
  const prev = normaliseEvent(realPayload());

  it('accepts the real payload', () => {
    expect(assessPayload(realPayload(), { raceId: RACE_ID, prev })).toEqual({ ok: true });
  });

  it('rejects runners: null', () => {
    const p = change(realPayload(), (d) => {
      d.runners = null;
    });
    expect(assessPayload(p)).toMatchObject({ ok: false, code: 'runners_missing' });
  });

  it('rejects an empty runners list when the race had runners', () => {
    const p = change(realPayload(), (d) => {
      d.runners = [];
    });
    expect(assessPayload(p, { prev })).toMatchObject({ ok: false, code: 'runners_vanished' });
    expect(assessPayload(p)).toEqual({ ok: true });
  });

  it('rejects a payload carrying an upstream error', () => {
    const p = change(realPayload(), (d) => {
      d.error = 'event not available';
    });
    expect(assessPayload(p, { prev })).toEqual({
      ok: false,
      code: 'upstream_error',
      reason: 'upstream reported: event not available',
    });
  });

  it('rejects a payload about another race', () => {
    expect(assessPayload(realPayload(), { raceId: 'other' })).toMatchObject({
      ok: false,
      code: 'race_mismatch',
    });
  });

  it('leaves results that vanish to the trust model, which holds them until confirmed', () => {
    const p = change(realPayload(), (d) => {
      d.results = null;
    });
    expect(assessPayload(p, { prev })).toEqual({ ok: true });
  });

  it('accepts a missing runner record field as data', () => {
    const p = change(realPayload(), (d) => {
      delete runner(d, 3).odds;
    });
    expect(assessPayload(p, { prev })).toEqual({ ok: true });
  });
});

describe('jsonSizeFloor', () => {
  it('is a lower bound of the serialised document, within a quarter of it on the real payload', () => {
    const doc = normaliseEvent(realPayload());
    const floor = jsonSizeFloor(doc)!;
    const exact = JSON.stringify(doc).length;
    expect(floor).toBeLessThanOrEqual(exact);
    expect(floor).toBeGreaterThan(exact * 0.75);
  });
});
