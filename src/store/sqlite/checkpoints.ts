/**
 * Head documents as the SQLite and Redis logs keep them: a checkpoint every few patches (compressed on SQLite)
 * instead of the whole ~200 KB document rewritten on every change, and the head rebuilt from the checkpoint and
 * the patches since. Pure: the adapters do the storing.
 *
 * A rebuilt document must serialise to the same bytes as the document that was appended, so a patch whose
 * replay could order an object's keys differently (an `add` of an object member goes last on replay, while
 * the new document may hold it elsewhere; `move` and `copy` likewise) is checkpointed at once.
 */
import { brotliCompressSync, brotliDecompressSync, constants } from 'node:zlib';
import fjp, { type Operation } from 'fast-json-patch';

/** Patches between checkpoints of a stream's head document, unless the rules above checkpoint sooner. */
export const DEFAULT_CHECKPOINT_EVERY = 32;

/** Brotli at quality 1: about 8 : 1 on a race document in about a millisecond (see docs/benchmarks.md). */
export function packDocument(json: string): Buffer {
  return brotliCompressSync(json, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: 1,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
    },
  });
}

export function unpackDocument(blob: Buffer): string {
  return brotliDecompressSync(blob).toString('utf8');
}

const unescapeToken = (t: string) => (t.includes('~') ? t.replace(/~1/g, '/').replace(/~0/g, '~') : t);

/** The value holding the member `pointer` names, in `document`. */
function parentOf(document: unknown, pointer: string): unknown {
  const tokens = pointer.split('/').slice(1, -1);
  let node = document;
  for (const token of tokens) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[unescapeToken(token)];
  }
  return node;
}

/**
 * True when applying `ops` to the previous document gives `document` with the same bytes: every op replaces
 * or removes, adds into an array (whose positions the op names), or adds object members that are, in op
 * order, the last members of their object in `document` (replay appends them there). Paths through
 * `__proto__` count as not replayable (fast-json-patch refuses them).
 */
export function replaysExactly(ops: readonly Operation[], document: unknown): boolean {
  const added = new Map<string, { parent: object; keys: string[] }>();
  for (const op of ops) {
    if (op.path.split('/').includes('__proto__')) return false;
    if (op.op === 'move' || op.op === 'copy') return false;
    if (op.op !== 'add') continue;
    const parent = parentOf(document, op.path);
    if (Array.isArray(parent)) continue;
    if (parent === null || typeof parent !== 'object' || op.path === '') return false;
    const pointer = op.path.slice(0, op.path.lastIndexOf('/'));
    const group = added.get(pointer) ?? { parent, keys: [] };
    group.keys.push(unescapeToken(op.path.slice(pointer.length + 1)));
    added.set(pointer, group);
  }
  for (const { parent, keys } of added.values()) {
    const last = Object.keys(parent).slice(-keys.length);
    if (last.length !== keys.length || last.some((k, i) => k !== keys[i])) return false;
  }
  return true;
}

/**
 * Whether the head document must be checkpointed with a patch: the `patchesSince`-th patch since the last
 * checkpoint (this one counted) reaches `every`, or replaying `ops` would not give `document`'s bytes.
 */
export function checkpointDue(
  patchesSince: number,
  every: number,
  ops: readonly Operation[],
  document: unknown,
) {
  return patchesSince >= every || !replaysExactly(ops, document);
}

/** Applies each patch in order to `document` (which it may change) and returns the result. */
export function applyPatches(document: unknown, patches: readonly Operation[][]): unknown {
  let doc = document;
  for (const ops of patches) doc = fjp.applyPatch(doc, ops as Operation[], false, true, true).newDocument;
  return doc;
}
