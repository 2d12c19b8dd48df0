import fc from 'fast-check';
import fjp from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { diffDocuments, shouldSnapshot } from '../../src/watch/track/diff.js';
import { normaliseEvent, toJsonValue } from '../../src/watch/track/normalise.js';
import { mutate, mutationArb } from './mutations.js';
import { change, realPayload } from './support.js';

/** apply(clone(prev), ops), failing loudly if any op is invalid. */
function apply<T>(prev: T, ops: fjp.Operation[]): T {
  const copy = fjp.deepClone(prev);
  return fjp.applyPatch(copy, ops, true, true).newDocument as T;
}

const base = realPayload();
const mutations = fc.array(mutationArb, { minLength: 0, maxLength: 6 });

describe('diffDocuments on mutated real payloads', () => {
  it('applying the diff to prev gives next, for any two related payloads', () => {
    fc.assert(
      fc.property(mutations, mutations, (first, second) => {
        const prevPayload = mutate(base, first);
        const prev = normaliseEvent(prevPayload);
        const next = normaliseEvent(mutate(prevPayload, second));
        const ops = diffDocuments(prev, next);
        expect(apply(prev, ops)).toEqual(next);
        if (ops.length === 0) expect(next).toEqual(prev);
      }),
      { numRuns: 150 },
    );
  });

  it('gives no ops for an identical payload', () => {
    fc.assert(
      fc.property(mutations, (muts) => {
        const payload = mutate(base, muts);
        expect(diffDocuments(normaliseEvent(payload), normaliseEvent(structuredClone(payload)))).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });

  it('gives no ops when runners, results, dividends and pools come in another order', () => {
    fc.assert(
      fc.property(mutations, fc.array(fc.integer(), { minLength: 8, maxLength: 16 }), (muts, keys) => {
        const payload = mutate(base, muts);
        const reordered = change(payload, (d) => {
          for (const key of ['runners', 'results', 'dividends', 'tote_pools']) {
            if (Array.isArray(d[key])) {
              d[key] = d[key]
                .map((x: unknown, i: number) => ({ x, k: keys[i % keys.length]! }))
                .sort((a: { k: number }, b: { k: number }) => a.k - b.k)
                .map((e: { x: unknown }) => e.x);
            }
          }
        });
        expect(diffDocuments(normaliseEvent(payload), normaliseEvent(reordered))).toEqual([]);
      }),
      { numRuns: 40 },
    );
  });
});

describe('diffDocuments on any JSON documents', () => {
  const doc = fc
    .dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 4 }))
    .map((v) => toJsonValue(JSON.parse(JSON.stringify(v))));

  it('applying the diff to prev gives next', () => {
    fc.assert(
      fc.property(doc, doc, (prev, next) => {
        expect(apply(prev, diffDocuments(prev, next))).toEqual(next);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the law for windows with repeated values', () => {
    const window = fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 0, maxLength: 10 });
    fc.assert(
      fc.property(window, fc.nat(), window, window, (items, drop, front, back) => {
        const h = items.length ? drop % items.length : 0;
        const prev = { flucs: items };
        const next = { flucs: [...front, ...items.slice(h), ...back] };
        const ops = diffDocuments(prev, next);
        expect(apply(prev, ops)).toEqual(next);
        if (front.length === 0) expect(ops.length).toBeLessThanOrEqual(h + back.length);
      }),
      { numRuns: 500 },
    );
  });

  it('writes a shifted window of distinct items as removes at one end and adds at the other', () => {
    // Distinct items, like timestamped flucs; with repeats at both ends it may fall back to index diffing.
    const window = fc.uniqueArray(fc.integer({ min: 0, max: 50 }), { minLength: 2, maxLength: 20 });
    fc.assert(
      fc.property(window, fc.nat(), (all, drop) => {
        const items = all.slice(0, Math.ceil(all.length / 2));
        const added = all.slice(items.length);
        const h = drop % items.length;
        const prev = { flucs: items };
        const next = { flucs: [...items.slice(h), ...added] };
        const ops = diffDocuments(prev, next);
        expect(apply(prev, ops)).toEqual(next);
        expect(ops.length).toBeLessThanOrEqual(h + added.length);
      }),
      { numRuns: 300 },
    );
  });

  it('turns one new fluc in a full window into one remove and one add', () => {
    const prev = { flucs: [8.5, 6, 4.6, 5, 4.8, 5.5] };
    const next = { flucs: [6, 4.6, 5, 4.8, 5.5, 5] };
    expect(diffDocuments(prev, next)).toEqual([
      { op: 'remove', path: '/flucs/0' },
      { op: 'add', path: '/flucs/-', value: 5 },
    ]);
  });

  it('inserts at the head of a newest-first list and drops its tail', () => {
    const prev = { starts: ['c', 'b', 'a'] };
    const next = { starts: ['d', 'c', 'b'] };
    expect(diffDocuments(prev, next)).toEqual([
      { op: 'remove', path: '/starts/2' },
      { op: 'add', path: '/starts/0', value: 'd' },
    ]);
  });

  it('does not mutate its inputs', () => {
    const prev = { a: [1, 2, 3], b: { c: 1 } };
    const next = { a: [2, 3, 4], b: { c: 2 } };
    diffDocuments(prev, next);
    expect(prev).toEqual({ a: [1, 2, 3], b: { c: 1 } });
    expect(next).toEqual({ a: [2, 3, 4], b: { c: 2 } });
  });
});

describe('shouldSnapshot', () => {
  it('is false for a small patch and true for one larger than half the document', () => {
    const next = { a: 'x'.repeat(100) };
    expect(shouldSnapshot([{ op: 'replace', path: '/b', value: 1 }], next)).toBe(false);
    expect(shouldSnapshot([{ op: 'replace', path: '/a', value: next.a }], next)).toBe(true);
    expect(shouldSnapshot([{ op: 'replace', path: '/a', value: next.a }], next, 2)).toBe(false);
  });
});

describe('diffDocuments values', () => {
  it('shares no objects with next, so applying a patch cannot alias the new document', () => {
    const prev = { w: [{ t: 1 }, { t: 2 }, { t: 3 }] };
    const next = { w: [{ t: 2 }, { t: 3 }, { t: 4 }] };
    const ops = diffDocuments(prev, next);
    expect(ops).toEqual([
      { op: 'remove', path: '/w/0' },
      { op: 'add', path: '/w/-', value: { t: 4 } },
    ]);
    expect((ops[1] as { value: unknown }).value).not.toBe(next.w[2]);
  });
});
