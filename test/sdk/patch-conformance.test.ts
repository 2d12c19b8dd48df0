import { readFileSync } from 'node:fs';
import type { Operation } from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { applyPatchAtomic } from '../../clients/js/src/patch.js';

interface Case {
  comment?: string;
  doc: unknown;
  patch: Operation[];
  expected?: unknown;
  error?: string;
  disabled?: boolean;
}

const load = (name: string) =>
  JSON.parse(
    readFileSync(new URL(`../fixtures/json-patch-tests/${name}`, import.meta.url), 'utf8'),
  ) as Case[];

for (const file of ['tests.json', 'spec_tests.json']) {
  const cases = load(file)
    .map((c, i) => ({ ...c, name: `${i}: ${c.comment ?? c.error ?? JSON.stringify(c.patch).slice(0, 60)}` }))
    .filter((c) => !c.disabled);
  describe(`JSON Patch conformance (${file})`, () => {
    it.each(cases)('$name', (c) => {
      const before = JSON.stringify(c.doc);
      const result = applyPatchAtomic(c.doc, c.patch);
      if (c.error !== undefined) expect(result.ok).toBe(false);
      else if (c.expected !== undefined) expect(result).toEqual({ ok: true, document: c.expected });
      else expect(result.ok).toBe(true);
      expect(JSON.stringify(c.doc)).toBe(before); // atomic: the input is never changed
    });
  });
}

describe('applyPatchAtomic', () => {
  it('leaves the document untouched when a later operation fails', () => {
    const doc = { a: 1, list: [1, 2] };
    const result = applyPatchAtomic(doc, [
      { op: 'replace', path: '/a', value: 2 },
      { op: 'remove', path: '/missing' },
    ]);
    expect(result.ok).toBe(false);
    expect(doc).toEqual({ a: 1, list: [1, 2] });
  });

  it('rejects array indices with leading zeros', () => {
    expect(applyPatchAtomic([1, 2], [{ op: 'replace', path: '/01', value: 3 }])).toMatchObject({ ok: false });
  });
});
