/**
 * JSON Patch (RFC 6902) between two normalised documents, with fast-json-patch.
 *
 * Law (property-tested): `applyPatch(clone(prev), diffDocuments(prev, next))` deep-equals `next`, and equal
 * documents give no ops. fast-json-patch compares arrays by index, so a sliding window (oldest item
 * dropped, newest appended, e.g. a runner's `flucs`) would be a replace per element; a post-pass finds
 * such arrays among the changed paths and writes them as removes at the head plus adds at the tail (or the
 * mirror for newest-first lists) when that is shorter. Documents must be JSON values (see `toJsonValue`).
 */
import fjp, { type Operation } from 'fast-json-patch';
import { jsonSizeFloor } from './normalise.js';

type Rec = Record<string, unknown>;

/** Deep equality of JSON values. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) {
    if (!Object.hasOwn(b, k) || !jsonEqual((a as Rec)[k], (b as Rec)[k])) return false;
  }
  return true;
}

/** Windows longer than this are left to plain index diffing (the search is quadratic). */
const MAX_WINDOW = 64;

/**
 * Ops turning array `p` into `n` when `n` is `p` shifted (dropped at one end, grown at the other) and that
 * takes fewer than `budget` ops; else undefined.
 */
function shiftOps(
  p: readonly unknown[],
  n: readonly unknown[],
  path: string,
  budget: number,
): Operation[] | undefined {
  if (p.length === 0 || n.length === 0 || p.length > MAX_WINDOW || n.length > MAX_WINDOW) return undefined;
  // Oldest first: p = dropped + kept, n = kept + added.
  for (let h = 1; h < p.length; h++) {
    const kept = p.length - h;
    if (kept > n.length || h + n.length - kept >= budget) continue;
    let same = true;
    for (let i = 0; i < kept && same; i++) same = jsonEqual(p[h + i], n[i]);
    if (!same) continue;
    const ops: Operation[] = [];
    for (let i = 0; i < h; i++) ops.push({ op: 'remove', path: `${path}/0` });
    for (let i = kept; i < n.length; i++)
      ops.push({ op: 'add', path: `${path}/-`, value: fjp.deepClone(n[i]) });
    return ops;
  }
  // Newest first: p = kept + dropped, n = added + kept.
  for (let a = 1; a < n.length; a++) {
    const kept = n.length - a;
    if (kept > p.length || a + p.length - kept >= budget) continue;
    let same = true;
    for (let i = 0; i < kept && same; i++) same = jsonEqual(n[a + i], p[i]);
    if (!same) continue;
    const ops: Operation[] = [];
    for (let i = p.length - 1; i >= kept; i--) ops.push({ op: 'remove', path: `${path}/${i}` });
    for (let i = 0; i < a; i++) ops.push({ op: 'add', path: `${path}/${i}`, value: fjp.deepClone(n[i]) });
    return ops;
  }
  return undefined;
}

const unescapeKey = (seg: string) => (seg.includes('~') ? seg.replace(/~1/g, '/').replace(/~0/g, '~') : seg);

/** Pointers (strict prefixes of `path`) at which `doc` holds an array, outermost first. */
function arrayPrefixes(doc: unknown, path: string): string[] {
  const out: string[] = [];
  let node = doc;
  let at = 0;
  while (node !== null && typeof node === 'object') {
    const next = path.indexOf('/', at + 1);
    if (next === -1) break;
    if (Array.isArray(node)) out.push(path.slice(0, at));
    node = (node as Rec)[unescapeKey(path.slice(at + 1, next))];
    at = next;
  }
  if (Array.isArray(node)) out.push(path.slice(0, at));
  return out;
}

function resolve(doc: unknown, pointer: string): unknown {
  let node = doc;
  for (const seg of pointer.split('/').slice(1)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Rec)[unescapeKey(seg)];
  }
  return node;
}

/**
 * Where fast-json-patch spent two or more ops under one array, tries a shift of that array instead and
 * keeps it when it is shorter. Ops under one array pointer touch only that subtree, so swapping the group
 * for equivalent ops keeps the patch exact.
 */
function compactShifts(prev: unknown, next: unknown, ops: Operation[]): Operation[] {
  const groups = new Map<string, number[]>();
  ops.forEach((op, i) => {
    for (const pointer of arrayPrefixes(prev, op.path)) {
      const list = groups.get(pointer) ?? [];
      list.push(i);
      groups.set(pointer, list);
    }
  });
  const replaced = new Map<number, Operation[]>();
  const consumed = new Set<number>();
  const pointers = [...groups.keys()].sort((a, b) => a.length - b.length);
  for (const pointer of pointers) {
    const members = groups.get(pointer)!.filter((i) => !consumed.has(i));
    if (members.length < 2) continue;
    const p = resolve(prev, pointer);
    const n = resolve(next, pointer);
    if (!Array.isArray(p) || !Array.isArray(n)) continue;
    const shift = shiftOps(p, n, pointer, members.length);
    if (!shift) continue;
    for (const i of members) consumed.add(i);
    replaced.set(members[0]!, shift);
  }
  if (consumed.size === 0) return ops;
  return ops.flatMap((op, i) => replaced.get(i) ?? (consumed.has(i) ? [] : [op]));
}

/** The RFC 6902 ops that turn `prev` into `next`; empty when they are deep-equal. Inputs are not mutated. */
export function diffDocuments<T>(prev: T, next: T): Operation[] {
  const ops = fjp.compare(prev as object, next as object);
  return ops.length < 2 ? ops : compactShifts(prev, next, ops);
}

/**
 * Above this share of the serialised document, a patch is sent as a snapshot instead: a client applying a
 * patch about as large as the document gains nothing and risks more.
 */
export const SNAPSHOT_FRACTION = 0.5;

/** True when the serialised patch is larger than `fraction` of the serialised document. */
export function shouldSnapshot(
  ops: readonly Operation[],
  next: unknown,
  fraction = SNAPSHOT_FRACTION,
): boolean {
  const patchBytes = JSON.stringify(ops).length;
  // Documents from normaliseEvent carry a cheap lower bound of their size: usually enough to say no.
  const floor = jsonSizeFloor(next);
  if (floor !== undefined && patchBytes <= fraction * floor) return false;
  return patchBytes > fraction * JSON.stringify(next).length;
}
