import fc from 'fast-check';
import fjp, { type Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { compactOps } from '../../../src/delivery/core/compact-ops.js';
import {
  type Projection,
  parseProjection,
  project,
  projectOps,
} from '../../../src/delivery/core/projection.js';
import { diffDocuments } from '../../../src/watch/track/diff.js';

const apply = (doc: unknown, ops: readonly Operation[]) =>
  fjp.applyPatch(fjp.deepClone(doc), fjp.deepClone(ops) as Operation[], true, false).newDocument;

const key = fc.constantFrom('a', 'b', 'c', 'd');
const { node } = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.integer({ min: 0, max: 9 }),
    fc.constant(null),
    fc.array(tie('node'), { maxLength: 3 }),
    fc.dictionary(key, tie('node'), { maxKeys: 4 }),
  ),
}));
const doc = fc.dictionary(key, node, { maxKeys: 4 });
const fields = fc
  .array(fc.array(fc.constantFrom('a', 'b', 'c', '*'), { minLength: 1, maxLength: 3 }), {
    minLength: 1,
    maxLength: 3,
  })
  .map((ps) => ps.map((p) => `/${p.join('/')}`));

const projection = (f: string[]): Projection => {
  const p = parseProjection(f);
  if (!p.ok) throw new Error(p.message);
  return p.projection;
};

describe('field projection', () => {
  it('commutes with patching: project(apply(doc, ops)) equals apply(project(doc), projectOps(ops))', () => {
    fc.assert(
      fc.property(doc, doc, fields, (prev, next, f) => {
        const p = projection(f);
        const ops = diffDocuments(prev, next);
        // Op by op, so every intermediate document is checked too.
        let full: unknown = prev;
        let projected = project(prev, p);
        for (const op of ops) {
          full = apply(full, [op]);
          projected = apply(projected, projectOps([op], p)!);
          expect(projected).toEqual(project(full, p));
        }
        expect(projected).toEqual(project(next, p));
      }),
      { numRuns: 400 },
    );
  });

  it('keeps only the asked paths of a race document', () => {
    const race = {
      race: { event_id: 'R1', status: 'Open', class: 'BM70' },
      runners: {
        E1: { entrant_id: 'E1', name: 'Alpha', odds: { fixed_win: 3 }, flucs: [4, 3] },
        E2: { entrant_id: 'E2', name: 'Bravo', odds: { fixed_win: 5 } },
      },
      results: {},
      dividends: { D1: { id: 'D1' } },
    };
    const p = projection(['/race/status', '/runners/*/odds', '/results']);
    expect(project(race, p)).toEqual({
      race: { status: 'Open' },
      runners: { E1: { odds: { fixed_win: 3 } }, E2: { odds: { fixed_win: 5 } } },
      results: {},
    });
    expect(
      projectOps(
        [
          { op: 'replace', path: '/runners/E1/odds/fixed_win', value: 2.8 },
          { op: 'add', path: '/runners/E1/flucs/-', value: 2.8 },
          { op: 'add', path: '/runners/E3', value: { entrant_id: 'E3', odds: { fixed_win: 9 } } },
          { op: 'replace', path: '/race/class', value: 'BM72' },
        ],
        p,
      ),
    ).toEqual([
      { op: 'replace', path: '/runners/E1/odds/fixed_win', value: 2.8 },
      { op: 'add', path: '/runners/E3', value: { odds: { fixed_win: 9 } } },
    ]);
  });

  it('refuses patterns that are not pointers or that name a list index', () => {
    expect(parseProjection(['race/status'])).toMatchObject({ ok: false });
    expect(parseProjection(['/runners/0/odds'])).toMatchObject({ ok: false });
    expect(parseProjection(['/runners//odds'])).toMatchObject({ ok: false });
    expect(parseProjection([])).toMatchObject({ ok: false });
  });
});

describe('compactOps (conflation)', () => {
  it('gives the same document as the operations it merges', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 2, maxLength: 5 }), (docs) => {
        const ops: Operation[] = [];
        for (let i = 1; i < docs.length; i++) ops.push(...diffDocuments(docs[i - 1], docs[i]));
        const merged = compactOps(ops);
        expect(merged.length).toBeLessThanOrEqual(ops.length);
        expect(apply(docs[0], merged)).toEqual(docs.at(-1));
      }),
      { numRuns: 400 },
    );
  });

  it('merges projected patches the same way', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 2, maxLength: 5 }), fields, (docs, f) => {
        const p = projection(f);
        const ops: Operation[] = [];
        for (let i = 1; i < docs.length; i++)
          ops.push(...projectOps(diffDocuments(docs[i - 1], docs[i]), p)!);
        expect(apply(project(docs[0], p), compactOps(ops))).toEqual(project(docs.at(-1), p));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps one replace per price that moved several times', () => {
    const ops: Operation[] = [];
    for (let n = 0; n < 10; n++) {
      ops.push({ op: 'replace', path: '/runners/E1/odds/fixed_win', value: 3 + n / 10 });
      ops.push({ op: 'replace', path: '/runners/E2/odds/fixed_win', value: 5 + n / 10 });
    }
    expect(compactOps(ops)).toEqual([
      { op: 'replace', path: '/runners/E1/odds/fixed_win', value: 3.9 },
      { op: 'replace', path: '/runners/E2/odds/fixed_win', value: 5.9 },
    ]);
  });
});
