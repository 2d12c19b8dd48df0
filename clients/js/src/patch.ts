/**
 * Atomic, validating JSON Patch (RFC 6902) for the SDK's local copies. fast-json-patch does the work; this
 * wrapper applies to a clone (its applyPatch is not atomic) and rejects array indices with leading zeros,
 * which RFC 6901 forbids and fast-json-patch accepts in `test`.
 */

import type { Operation } from 'fast-json-patch';
import fjp from 'fast-json-patch';

export type PatchResult = { ok: true; document: unknown } | { ok: false; error: string };

const INDEX = /^(0|[1-9][0-9]*)$/;

function unescapeToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Checks every array step of `pointer` in `doc` is a canonical index ('-' allowed as the last step). */
function checkIndices(doc: unknown, pointer: string): string | undefined {
  if (pointer === '') return undefined;
  const tokens = pointer.split('/').slice(1).map(unescapeToken);
  let node: unknown = doc;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (Array.isArray(node)) {
      if (t === '-' && i === tokens.length - 1) return undefined;
      if (!INDEX.test(t)) return `bad array index "${t}" in ${pointer}`;
      node = node[Number(t)];
    } else if (node !== null && typeof node === 'object') {
      node = (node as Record<string, unknown>)[t];
    } else {
      return undefined; // a missing parent: fast-json-patch reports it
    }
  }
  return undefined;
}

/** Applies `ops` to a copy of `document`; the input is never modified, even when an op fails. */
export function applyPatchAtomic(document: unknown, ops: readonly Operation[]): PatchResult {
  if (!Array.isArray(ops)) return { ok: false, error: 'patch must be an array' };
  let doc: unknown = structuredClone(document);
  try {
    for (const op of ops) {
      if (op === null || typeof op !== 'object' || typeof op.path !== 'string') {
        return { ok: false, error: 'operation without a path' };
      }
      const bad =
        checkIndices(doc, op.path) ?? ('from' in op ? checkIndices(doc, String(op.from)) : undefined);
      if (bad) return { ok: false, error: bad };
      doc = fjp.applyOperation(doc, op, true, true, false).newDocument;
    }
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  return { ok: true, document: doc };
}
