/**
 * Field projection: a subscription may ask for only some paths of a race document (for example
 * `/race/status`, `/runners/*\/odds`, `/results`), and its snapshots and patches then carry only those.
 * Patterns are JSON Pointers whose `*` segment matches any one member or list index; other segments name
 * object members, so they may not be list indices (digits or `-`).
 *
 * The projection of a document keeps every member on the way to a pattern (an object keeps the members
 * that match, a list keeps every element when a `*` matches it and none otherwise, a value that is neither
 * is kept as it is) and whole values where a pattern ends. Patches are projected one operation at a time
 * with the same matching, so that, for every operation `op` that applies to `doc`:
 *   project(apply(doc, op)) == apply(project(doc), projectOps([op]))        (property-tested)
 */
import type { Operation } from 'fast-json-patch';

export interface Projection {
  /** Canonical form, to share serialised messages between subscribers asking for the same fields. */
  readonly key: string;
  readonly patterns: readonly (readonly string[])[];
}

export const MAX_FIELDS = 32;
const MAX_FIELD_CHARS = 256;
const INDEX = /^(\d+|-)$/;

const unescapeSegment = (s: string) => s.replace(/~1/g, '/').replace(/~0/g, '~');

export function parsePointer(pointer: string): string[] {
  return pointer === '' ? [] : pointer.slice(1).split('/').map(unescapeSegment);
}

export type ProjectionResult = { ok: true; projection: Projection } | { ok: false; message: string };

/** Validates and canonicalises a list of field patterns. */
export function parseProjection(fields: readonly string[]): ProjectionResult {
  if (fields.length === 0 || fields.length > MAX_FIELDS)
    return { ok: false, message: `fields: give 1 to ${MAX_FIELDS} patterns` };
  const patterns: string[][] = [];
  for (const f of fields) {
    const bad = (why: string): ProjectionResult => ({
      ok: false,
      message: `fields: ${JSON.stringify(f.slice(0, 40))} ${why}`,
    });
    if (f.length > MAX_FIELD_CHARS) return bad(`is longer than ${MAX_FIELD_CHARS} characters`);
    if (!f.startsWith('/') || f.length < 2) return bad('is not a JSON Pointer such as /race/status');
    const segs = parsePointer(f);
    if (segs.some((s) => s === '')) return bad('has an empty segment');
    if (segs.some((s) => INDEX.test(s))) return bad('names a list index; use * for every element');
    patterns.push(segs);
  }
  const key = [...new Set(patterns.map((p) => JSON.stringify(p)))].sort().join('\n');
  return { ok: true, projection: { key, patterns } };
}

type Patterns = readonly (readonly string[])[];

/** The rest of each pattern whose first segment matches `seg`. */
function tails(patterns: Patterns, seg: string): Patterns {
  const out: (readonly string[])[] = [];
  for (const p of patterns) if (p.length > 0 && (p[0] === '*' || p[0] === seg)) out.push(p.slice(1));
  return out;
}

const whole = (patterns: Patterns) => patterns.some((p) => p.length === 0);

function projectValue(value: unknown, patterns: Patterns): unknown {
  if (whole(patterns)) return value;
  if (Array.isArray(value)) {
    const each = tails(patterns, '0');
    // Only `*` reaches list elements, and it reaches every one of them.
    return each.length === 0 ? [] : value.map((v) => projectValue(v, each));
  }
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const t = tails(patterns, k);
    if (t.length > 0) out[k] = projectValue(v, t);
  }
  return out;
}

/** The projection of a document. */
export function project(document: unknown, projection: Projection): unknown {
  return projectValue(document, projection.patterns);
}

/**
 * The projection of a patch, or undefined when an operation cannot be projected without the document
 * (`move`, `copy` or `test` across the projection's edge): the subscriber then gets a fresh snapshot.
 */
export function projectOps(ops: readonly Operation[], projection: Projection): Operation[] | undefined {
  const out: Operation[] = [];
  for (const op of ops) {
    const at = locate(parsePointer(op.path), projection.patterns);
    if (op.op === 'move' || op.op === 'copy' || op.op === 'test') {
      const from = op.op === 'test' ? at : locate(parsePointer(op.from), projection.patterns);
      if (at.kind === 'inside' && from.kind === 'inside') out.push(op);
      else if (at.kind === 'outside' && from.kind === 'outside') continue;
      else return undefined;
      continue;
    }
    if (at.kind === 'outside') continue;
    if (at.kind === 'inside' || op.op === 'remove') out.push(op);
    else out.push({ ...op, value: projectValue(op.value, at.rest) } as Operation);
  }
  return out;
}

type Location = { kind: 'inside' } | { kind: 'outside' } | { kind: 'on-the-way'; rest: Patterns };

/** Where a path lies: inside a selected value, on the way to one (with the patterns left), or outside. */
function locate(segs: readonly string[], patterns: Patterns): Location {
  let cur = patterns;
  for (const seg of segs) {
    if (whole(cur)) return { kind: 'inside' };
    cur = tails(cur, seg);
    if (cur.length === 0) return { kind: 'outside' };
  }
  return whole(cur) ? { kind: 'inside' } : { kind: 'on-the-way', rest: cur };
}
