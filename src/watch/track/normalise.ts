/**
 * The race document clients see, built from a validated `/events/{id}` response (docs/document.md).
 * Arrays of records become objects keyed by identity, so a change reads `/runners/<entrant_id>/odds/fixed_win`
 * and a re-ordered array is no change at all. Nothing is lost: every member of `data` is kept (unknown ones
 * as they are), each keyed record still holds its identity field, and a duplicate identity gets a `#2`, `#3`
 * suffix rather than overwriting. Pure: no I/O, no clock.
 */
import { withRacingCode } from '../../upstream/racing-code.js';
import type { Dividend, EventResponse, ResultB, RunnerB, TotePool } from '../../upstream/schemas.js';

/** A runner as kept in the document: `flucs_with_timestamp.last_six` is keyed by its fluc timestamps. */
export type DocRunner = RunnerB;

/** The normalised race document (see docs/document.md). Members not listed are kept as upstream sent them. */
export interface RaceDocument {
  race: EventResponse['data']['race'];
  /** By entrant_id. */
  runners: Record<string, DocRunner>;
  /** By entrant_id; null or absent as upstream sent it. */
  results?: Record<string, ResultB> | null;
  /** By dividend id (Interim and Final rows of a pool have different ids). */
  dividends?: Record<string, Dividend> | null;
  /** By product_type. */
  tote_pools?: Record<string, TotePool> | null;
  /** By `<product_name>|<tote>|<entrant_id>`. */
  substitutions?: Record<string, unknown> | null;
  /** By entrant_id. */
  derivatives?: Record<string, unknown> | null;
  /** `entrants` grouped by entrant_id: each entrant's rows in upstream order (rows repeat per entrant). */
  money_tracker?: unknown;
  [member: string]: unknown;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Rec = Record<string, unknown>;

const isRecord = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * A JSON-safe deep copy: undefined members dropped, undefined array items and non-finite numbers become
 * null (what JSON.stringify does). fast-json-patch emits ops for undefined that its own applyPatch rejects.
 */
export function toJsonValue(value: unknown): Json {
  return copyJson(value, { bytes: 0 });
}

/**
 * A lower bound of each normalised document's JSON length, counted while copying, so `shouldSnapshot`
 * rarely needs to serialise the whole document (escapes and number digits only make the real one longer).
 */
const sizeFloors = new WeakMap<object, number>();

export const jsonSizeFloor = (doc: unknown): number | undefined =>
  doc !== null && typeof doc === 'object' ? sizeFloors.get(doc) : undefined;

function copyJson(value: unknown, size: { bytes: number }): Json {
  if (value === null) {
    size.bytes += 4;
    return null;
  }
  switch (typeof value) {
    case 'string':
      size.bytes += value.length + 2;
      return value;
    case 'boolean':
      size.bytes += 4;
      return value;
    case 'number':
      size.bytes += 1;
      return Number.isFinite(value) ? value : null;
    case 'object': {
      size.bytes += 2;
      if (Array.isArray(value)) {
        const out: Json[] = new Array(value.length);
        for (let i = 0; i < value.length; i++) out[i] = copyJson(value[i], size);
        size.bytes += Math.max(0, value.length - 1);
        return out;
      }
      const out: { [key: string]: Json } = {};
      for (const key in value) {
        if (!Object.hasOwn(value, key)) continue;
        const v = (value as Rec)[key];
        // `__proto__` would set the copy's prototype instead of a member; it is hostile input, so it goes.
        if (key === '__proto__' || v === undefined || typeof v === 'function' || typeof v === 'symbol')
          continue;
        size.bytes += key.length + 4; // quotes, colon, comma
        out[key] = copyJson(v, size);
      }
      return out;
    }
    default:
      size.bytes += 4;
      return null;
  }
}

/**
 * Keys records by `identity(item)`. Items without an identity get `#<index>`. Records sharing an identity
 * (an upstream fault) get `<id>`, `<id>#2`, `<id>#3`, ... in the order of their content, not of their place
 * in the list, so the same records listed in another order make the same document (and no patch); no record
 * is ever overwritten.
 */
export function keyBy(items: readonly unknown[], identity: (item: Rec) => string | undefined): Rec {
  const groups = new Map<string, unknown[]>();
  items.forEach((item, index) => {
    const id = isRecord(item) ? identity(item) : undefined;
    const base = id === undefined || id === '' || id === '__proto__' ? `#${index}` : id;
    const group = groups.get(base);
    if (group) group.push(item);
    else groups.set(base, [item]);
  });
  const out: Rec = {};
  for (const [base, group] of groups) {
    for (const item of group.length > 1 ? byContent(group) : group) {
      let key = base;
      for (let n = 2; Object.hasOwn(out, key); n++) key = `${base}#${n}`;
      out[key] = item;
    }
  }
  return out;
}

/** `items` in the order of their JSON text (stable for equal texts). */
function byContent(items: unknown[]): unknown[] {
  return items
    .map((item) => ({ item, text: JSON.stringify(item) ?? '' }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
    .map((e) => e.item);
}

const field =
  (name: string) =>
  (item: Rec): string | undefined => {
    const v = item[name];
    return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;
  };

const byEntrant = field('entrant_id');

/** Arrays become keyed objects; null, absent and non-array values are kept as they are. */
function keyedOrAsIs(value: unknown, identity: (item: Rec) => string | undefined): unknown {
  return Array.isArray(value) ? keyBy(value, identity) : value;
}

function normaliseRunner(runner: unknown): unknown {
  if (!isRecord(runner)) return runner;
  const fwt = runner.flucs_with_timestamp;
  if (!isRecord(fwt) || !Array.isArray(fwt.last_six)) return runner;
  // A sliding window: keyed by timestamp, a new fluc is one add (and the oldest one remove).
  return { ...runner, flucs_with_timestamp: { ...fwt, last_six: keyBy(fwt.last_six, field('timestamp')) } };
}

function normaliseMoneyTracker(mt: unknown): unknown {
  if (!isRecord(mt) || !Array.isArray(mt.entrants)) return mt;
  // Rows repeat per entrant with no other identity (the real data has up to 10 per entrant), so group
  // them: each entrant's rows stay in upstream order, and a new row is one add at the end of its group.
  const groups: Record<string, unknown[]> = {};
  mt.entrants.forEach((row, index) => {
    const id = isRecord(row) ? byEntrant(row) : undefined;
    const key = id === undefined || id === '' || id === '__proto__' ? `#${index}` : id;
    const group = groups[key] ?? [];
    group.push(row);
    groups[key] = group;
  });
  return { ...mt, entrants: groups };
}

const substitutionKey = (s: Rec) => {
  const parts = [s.product_name, s.tote, s.entrant_id];
  return parts.every((p) => typeof p === 'string') ? parts.join('|') : undefined;
};

/**
 * The normalised document for a validated `/events/{id}` response that `assessPayload` accepted (so
 * `runners` is an array). The envelope is dropped.
 */
export function normaliseEvent(payload: EventResponse): RaceDocument {
  const data = payload.data as Rec;
  const out: Rec = {};
  for (const key in data) {
    if (!Object.hasOwn(data, key)) continue;
    const v = data[key];
    switch (key) {
      case 'runners':
        out.runners = Array.isArray(v) ? keyBy(v.map(normaliseRunner), byEntrant) : v;
        break;
      case 'results':
      case 'derivatives':
        out[key] = keyedOrAsIs(
          Array.isArray(v) && key === 'derivatives' ? v.map(normaliseRunner) : v,
          byEntrant,
        );
        break;
      case 'dividends':
        out.dividends = keyedOrAsIs(v, field('id'));
        break;
      case 'tote_pools':
        out.tote_pools = keyedOrAsIs(v, field('product_type'));
        break;
      case 'substitutions':
        out.substitutions = keyedOrAsIs(v, substitutionKey);
        break;
      case 'money_tracker':
        out.money_tracker = normaliseMoneyTracker(v);
        break;
      case 'race':
        // One racing code everywhere: `type` is T, H or G (the upstream spelling kept as `type_upstream`).
        out.race = isRecord(v) ? withRacingCode(v, 'type') : v;
        break;
      default:
        out[key] = v;
    }
  }
  const size = { bytes: 0 };
  const doc = copyJson(out, size) as unknown as RaceDocument;
  sizeFloors.set(doc, size.bytes);
  return doc;
}

export type AssessCode =
  | 'upstream_error'
  | 'race_mismatch'
  | 'runners_missing'
  | 'runners_vanished'
  | 'runners_truncated'
  | 'malformed';

export type Assessment = { ok: true } | { ok: false; code: AssessCode; reason: string };

const countOf = (v: unknown): number =>
  Array.isArray(v) ? v.length : isRecord(v) ? Object.keys(v).length : 0;

/**
 * Whether a payload can be diffed against `prev` without inventing events. A partial payload (runners
 * missing, emptied or truncated) or an upstream error yields no patch and no events: a missing runners list
 * is not twelve scratchings. Smaller losses (one runner, a result row, results gone) are left to the trust
 * model (trust.ts), which holds them until confirmed and uses the rest of the payload.
 */
export function assessPayload(
  payload: EventResponse,
  opts: { raceId?: string; prev?: RaceDocument } = {},
): Assessment {
  const data = isRecord(payload) ? (payload.data as unknown) : undefined;
  if (!isRecord(data) || !isRecord(data.race) || typeof data.race.event_id !== 'string') {
    return { ok: false, code: 'malformed', reason: 'payload has no data.race.event_id' };
  }
  if (typeof data.error === 'string' && data.error.trim() !== '') {
    return { ok: false, code: 'upstream_error', reason: `upstream reported: ${data.error.slice(0, 200)}` };
  }
  const raceId = data.race.event_id;
  const expected = opts.raceId ?? opts.prev?.race.event_id;
  if (expected !== undefined && raceId !== expected) {
    return { ok: false, code: 'race_mismatch', reason: `asked for race ${expected}, got ${raceId}` };
  }
  if (!Array.isArray(data.runners)) {
    return { ok: false, code: 'runners_missing', reason: 'runners is null or absent' };
  }
  const prev = opts.prev;
  if (prev && data.runners.length === 0 && countOf(prev.runners) > 0) {
    return { ok: false, code: 'runners_vanished', reason: 'runners is empty but the race had runners' };
  }
  if (prev && isRecord(prev.runners)) {
    // Upstream keeps scratched runners in the list, so a field does not lose runners wholesale: a list that
    // lacks more than a quarter of the known runners (and more than one) is a partial payload, not news.
    const present = new Set(data.runners.map((r) => (isRecord(r) ? r.entrant_id : undefined)));
    const missing = Object.keys(prev.runners).filter((id) => !present.has(id)).length;
    if (missing > 1 && missing * 4 > Object.keys(prev.runners).length) {
      return {
        ok: false,
        code: 'runners_truncated',
        reason: `${missing} of ${Object.keys(prev.runners).length} known runners are missing from the list`,
      };
    }
  }
  return { ok: true };
}
