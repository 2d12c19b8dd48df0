/**
 * The trust model for upstream data (docs/events.md#trust): what a new payload may change on first sight,
 * and what it must show again before racewire believes it. Pure: the time comes in as `now`.
 *
 * New information is believed at once: a price, a new result, a scratching, a status moving forward, a
 * new dividend. Losing information is not, because a partial, stale or rewound payload looks exactly like
 * it: a runner, a result row, a market price, a dividend row or the jump disappearing; a status going back;
 * a scratching or a protest cleared; placings changing after they were published. Such a claim is held
 * (the document keeps what it had, so no event and no patch) until the same claim is seen in
 * `confirmPayloads` consecutive payloads spanning `confirmMs`; then it is applied like any change.
 */
import { finite, isRecord, type Rec } from '../detect/detect-context.js';
import type { RaceDocument } from './normalise.js';

export interface TrustOptions {
  /** Consecutive payloads that must show a disappearance or regression. @default 3 */
  confirmPayloads?: number;
  /** Time from the first to the last of them, in ms of the race clock. @default 20_000 */
  confirmMs?: number;
}

export const DEFAULT_CONFIRM_PAYLOADS = 3;
export const DEFAULT_CONFIRM_MS = 20_000;

/** One claim waiting for confirmation: what was seen instead, how many payloads in a row, since when. */
export interface PendingClaim {
  seen: string;
  count: number;
  since: number;
}

/** The trust part of a race's state (track-race.ts): the order of payloads and the claims held. */
export interface TrustState {
  /** `header.generated_time` of the newest payload applied. */
  generatedTime?: string;
  /** Claims waiting for confirmation, by the document path they are about. */
  pending: Readonly<Record<string, PendingClaim>>;
}

export const EMPTY_TRUST: TrustState = { pending: {} };

/**
 * The trust state of a race after a restart, from the time its last change was appended: a payload
 * generated before that is older than what the log holds (stale), as `generated_time` and racewire's
 * race clock agree to within clock skew (the embedded simulator shares the clock). Claims start afresh.
 */
export const resumedTrust = (lastAppendedAt: number): TrustState => ({
  generatedTime: new Date(lastAppendedAt).toISOString(),
  pending: {},
});

/**
 * A claim's confirmation bookkeeping, shared by races and meetings: `believe(path, seen)` records that this
 * payload claims `seen` at `path` and answers whether the claim is now confirmed (apply it) or held.
 * `pending` ends up holding the claims still waiting; a claim not made again by this payload is forgotten
 * (confirmation needs consecutive payloads).
 */
export function claims(before: Readonly<Record<string, PendingClaim>>, opts: TrustOptions & { now: number }) {
  const needCount = opts.confirmPayloads ?? DEFAULT_CONFIRM_PAYLOADS;
  const needMs = opts.confirmMs ?? DEFAULT_CONFIRM_MS;
  const pending: Record<string, PendingClaim> = {};
  const held: string[] = [];
  return {
    pending,
    held,
    believe(path: string, seen: string): boolean {
      const last = before[path];
      const claim =
        last && last.seen === seen
          ? { seen, count: last.count + 1, since: last.since }
          : { seen, count: 1, since: opts.now };
      if (claim.count >= needCount && opts.now - claim.since >= needMs) return true;
      pending[path] = claim;
      held.push(path);
      return false;
    },
    /** Neither believed nor refuted by this payload (a row of its collection was dropped): still held. */
    keep(path: string): false {
      const last = before[path];
      if (last) pending[path] = last;
      held.push(path);
      return false;
    },
  };
}

/** Collections of a payload with a dropped row: their disappearances can be neither believed nor refuted. */
export type UnknownCollections = ReadonlySet<'runners' | 'results' | 'dividends'>;

export interface Reconciled {
  /** `next` with every unconfirmed claim replaced by what `prev` had. */
  document: RaceDocument;
  pending: Record<string, PendingClaim>;
  /** Paths of the claims held back by this payload. */
  held: string[];
}

/** Race statuses in the order a race goes through them; unknown statuses have no rank (never held). */
export const STATUS_RANK: Readonly<Record<string, number>> = {
  Upcoming: 0,
  Open: 0,
  Closed: 1,
  Interim: 2,
  Final: 3,
  Abandoned: 4,
};

const MARKETS = ['fixed_win', 'fixed_place', 'pool_win', 'pool_place'] as const;
const usable = (v: unknown) => (finite(v) ?? 0) > 0;
const records = (v: unknown): Rec => (isRecord(v) ? v : {});

/** Placings of a document as `entrant_id:position` pairs, sorted: two documents agree when these do. */
function placings(doc: RaceDocument): Map<string, number> {
  const out = new Map<string, number>();
  for (const row of Object.values(records(doc.results))) {
    if (!isRecord(row)) continue;
    const position = finite(row.position);
    if (typeof row.entrant_id === 'string' && position !== null) out.set(row.entrant_id, position);
  }
  return out;
}

const placingsKey = (p: Map<string, number>) =>
  [...p]
    .map(([id, pos]) => `${id}:${pos}`)
    .sort()
    .join(',');

/**
 * Whether placings have a gap: positions run 1, 2, 3, ... with a tie repeating its position and the next
 * one skipping (1, 1, 3). A gap (1, 2, 4) means rows are missing, so the list is partial, not news.
 */
function hasGap(p: Map<string, number>): boolean {
  const positions = [...p.values()].sort((x, y) => x - y);
  return positions.some((pos, i) => pos !== i + 1 && pos !== positions[i - 1]);
}

/**
 * Whether placings list fewer rows than a result list holds: both real Finals list at least the first four
 * (Awapuni all 8 starters, issue 22's second payload the top 4 of 7), or every starter when fewer run. A
 * shorter list is a row short even without a gap: a dead heat's tied row dropped (1, 2, 3 of 1, 2, 3, 3)
 * leaves none. Only such lists are confirmed first, so a whole first list costs no latency.
 */
function shortOfTopFour(p: Map<string, number>, doc: RaceDocument): boolean {
  const starters = Object.values(records(doc.runners)).filter(
    (r) => isRecord(r) && r.is_scratched !== true,
  ).length;
  return p.size > 0 && p.size < Math.min(4, starters);
}

/** Whether `next`'s placings take back anything `prev` published (a row gone or a position moved). */
function placingsRetracted(prev: Map<string, number>, next: Map<string, number>): boolean {
  for (const [id, position] of prev) if (next.get(id) !== position) return true;
  return false;
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one pass over the document, section by section (race, runners, results, dividends), against one claim book
export function reconcile(
  prev: RaceDocument,
  next: RaceDocument,
  state: TrustState,
  opts: TrustOptions & { now: number; unknown?: UnknownCollections },
): Reconciled {
  const unknown = opts.unknown ?? new Set();
  const book = claims(state.pending, opts);
  const { pending, held } = book;
  /** True when the claim about `path` is confirmed (apply it), false when it is held. */
  const believe = (path: string, seen: string, collection?: 'runners' | 'results' | 'dividends') =>
    collection !== undefined && unknown.has(collection) ? book.keep(path) : book.believe(path, seen);

  const race: Rec = { ...next.race };
  const a = prev.race as Rec;
  const rankBefore = STATUS_RANK[a.status as string];
  const rankAfter = STATUS_RANK[race.status as string];
  if (rankBefore !== undefined && rankAfter !== undefined && rankAfter < rankBefore) {
    if (!believe('/race/status', String(race.status))) race.status = a.status;
  }
  if (usable(a.actual_start) && !usable(race.actual_start)) {
    if (!believe('/race/actual_start', JSON.stringify(race.actual_start ?? null))) {
      race.actual_start = a.actual_start;
    }
  }
  if (a.protest === true && race.protest !== true) {
    if (!believe('/race/protest', JSON.stringify(race.protest ?? null))) {
      race.protest = a.protest;
      race.protest_reason = a.protest_reason;
    }
  } else if (typeof a.protest_reason === 'string' && a.protest_reason !== '' && race.protest === true) {
    const reason = race.protest_reason;
    if (typeof reason !== 'string' || reason === '') {
      if (!believe('/race/protest_reason', JSON.stringify(reason ?? null)))
        race.protest_reason = a.protest_reason;
    }
  }

  const runners: Rec = { ...records(next.runners) };
  for (const [key, before] of Object.entries(records(prev.runners))) {
    if (!isRecord(before)) continue;
    const after = runners[key];
    if (!isRecord(after)) {
      if (!believe(`/runners/${key}`, 'absent', 'runners')) runners[key] = before;
      continue;
    }
    const runner: Rec = { ...after };
    if (before.is_scratched === true && runner.is_scratched !== true) {
      if (!believe(`/runners/${key}/is_scratched`, JSON.stringify(runner.is_scratched ?? null))) {
        runner.is_scratched = true;
        runner.scratch_time = before.scratch_time;
      }
    }
    if (runner.is_scratched !== true && isRecord(before.odds)) {
      if (!isRecord(runner.odds)) {
        if (!believe(`/runners/${key}/odds`, JSON.stringify(runner.odds ?? null))) runner.odds = before.odds;
      } else {
        const odds: Rec = { ...runner.odds };
        for (const market of MARKETS) {
          if (!usable(before.odds[market]) || usable(odds[market])) continue;
          const path = `/runners/${key}/odds/${market}`;
          if (!believe(path, JSON.stringify(odds[market] ?? null))) odds[market] = before.odds[market];
        }
        runner.odds = odds;
      }
    }
    runners[key] = runner;
  }

  let results = next.results;
  const before = placings(prev);
  const after = placings(next);
  // A gap (rows missing from the middle) looks like a partial list, so it is confirmed first too; so do a
  // list upstream sent a bad row of and a list shorter than the top four: the row dropped may share a
  // listed position (a dead heat), and a list without it would name one runner where two placed.
  const changed = placingsKey(after) !== placingsKey(before);
  const partial = hasGap(after) || shortOfTopFour(after, next) || unknown.has('results');
  const suspect = placingsRetracted(before, after) || (partial && changed);
  if (suspect && !believe('/results', placingsKey(after), 'results')) results = prev.results;
  // A race is not believed Final while the placings it would confirm are in doubt: held reordered placings
  // (a protest upheld at the Final) would go out as the `final` result and be amended a poll later, and a
  // consumer cannot take that back. A list only cut to the placed runners keeps its order: Final goes on.
  const reordered = [...before].some(([id, position]) => after.has(id) && after.get(id) !== position);
  if (results !== next.results && reordered && race.status === 'Final' && a.status !== 'Final') {
    race.status = a.status;
  }

  let dividends = next.dividends;
  const beforeRows = records(prev.dividends);
  if (Object.keys(beforeRows).length > 0) {
    const rows: Rec = { ...records(next.dividends) };
    let restored = false;
    for (const [key, row] of Object.entries(beforeRows)) {
      if (Object.hasOwn(rows, key)) continue;
      if (!believe(`/dividends/${key}`, 'absent', 'dividends')) {
        rows[key] = row;
        restored = true;
      }
    }
    if (restored) dividends = rows as RaceDocument['dividends'];
  }

  // Nothing held: the payload's own document (which keeps its size floor, see normalise.ts).
  if (held.length === 0) return { document: next, pending, held };
  const document: RaceDocument = {
    ...next,
    race: race as RaceDocument['race'],
    runners: runners as RaceDocument['runners'],
  };
  if (results === undefined) delete document.results;
  else if (results !== next.results) document.results = results;
  if (dividends !== next.dividends) document.dividends = dividends;
  return { document, pending, held };
}
