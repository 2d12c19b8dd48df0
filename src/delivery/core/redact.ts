/**
 * Field-level authorisation for public subscribers. Restricted keys (src/events/restricted-fields.ts) are
 * removed wherever they appear in a document, patch value or event payload; ops whose path (or `from`)
 * passes through one are dropped. Removing by key at any depth errs on the side of not leaking.
 */
import type { Operation } from 'fast-json-patch';
import { RESTRICTED_ENTRANT_FIELDS, RESTRICTED_RACE_FIELDS } from '../../events/restricted-fields.js';

const RESTRICTED: ReadonlySet<string> = new Set([...RESTRICTED_RACE_FIELDS, ...RESTRICTED_ENTRANT_FIELDS]);

function hasRestricted(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasRestricted);
  if (value === null || typeof value !== 'object') return false;
  for (const [k, v] of Object.entries(value)) if (RESTRICTED.has(k) || hasRestricted(v)) return true;
  return false;
}

/** A copy of `value` without restricted keys; `value` itself when it has none (no needless copies). */
export function redactValue<T>(value: T): T {
  if (!hasRestricted(value)) return value;
  return strip(value) as T;
}

function strip(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(strip);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (!RESTRICTED.has(k)) out[k] = strip(v);
  return out;
}

function pointerTouchesRestricted(pointer: string): boolean {
  for (const raw of pointer.split('/')) {
    const seg = raw.includes('~') ? raw.replace(/~1/g, '/').replace(/~0/g, '~') : raw;
    if (RESTRICTED.has(seg)) return true;
  }
  return false;
}

/**
 * The public view of a patch. An op on a restricted path is dropped (the public document never had that
 * field); values carrying restricted keys are redacted. A move into a restricted path becomes a remove of
 * its source, so the public copy still loses what the full copy lost.
 */
export function redactOps(ops: readonly Operation[]): Operation[] {
  const out: Operation[] = [];
  for (const op of ops) {
    const pathBad = pointerTouchesRestricted(op.path);
    const fromBad = 'from' in op && typeof op.from === 'string' && pointerTouchesRestricted(op.from);
    if (op.op === 'move' && pathBad && !fromBad) {
      out.push({ op: 'remove', path: op.from });
      continue;
    }
    if (pathBad || fromBad) continue;
    if ('value' in op && hasRestricted(op.value)) out.push({ ...op, value: strip(op.value) } as Operation);
    else out.push(op);
  }
  return out;
}
