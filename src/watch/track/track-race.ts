/**
 * One tracker step for a race, pure: the race's state and a payload in; the next state, the entries to append
 * and the outcome out (assess -> order -> normalise -> trust -> diff -> detect). The state is one value: the
 * document, the trust state (payload order, claims awaiting confirmation: trust.ts), the money memory, the
 * favourite last reported and the digest of the data it was built from; the caller (race pipeline) only keeps
 * it and appends the entries, which the log numbers. A first observation is a snapshot only.
 */
import type { NewEntry } from '../../events/envelope.js';
import type { DroppedRow, EventResponse } from '../../upstream/schemas.js';
import { detectEvents } from '../detect/detect.js';
import { favouriteOf, reportedFavourite } from '../detect/detect-odds.js';
import type { DetectOptions } from '../detect/detect-options.js';
import { EMPTY_MONEY, type MoneyMemory } from '../detect/money-flow.js';
import { diffDocuments, SNAPSHOT_FRACTION, shouldSnapshot } from './diff.js';
import { generatedBefore } from './generated-time.js';
import { type AssessCode, assessPayload, normaliseEvent, type RaceDocument } from './normalise.js';
import type { DividendStage } from './race-watch.js';
import {
  EMPTY_TRUST,
  reconcile,
  resumedTrust,
  type TrustOptions,
  type TrustState,
  type UnknownCollections,
} from './trust.js';

export type { RaceDocument } from './normalise.js';
export type { TrustState } from './trust.js';

/** What racewire remembers of a race between payloads, as one value (kept in memory by the race pipeline). */
export interface RaceState {
  /** The race's document: the one the log's head holds. */
  readonly document: RaceDocument;
  /** The order of payloads and the claims awaiting confirmation (trust.ts). */
  readonly trust: TrustState;
  /** The money tracker's shares seen (money-flow.ts). */
  readonly money: MoneyMemory;
  /**
   * The runner key of the favourite last reported (null: none). It may differ from the document's: while a
   * runner's claim is held the document mixes old and new prices, and after a restart it is the log's.
   */
  readonly favourite: string | null;
  /**
   * The digest of the data the state was built from (upstream/data-digest.ts), when it was taken with no
   * claim waiting for its repeats: a payload with the same data is then answered without processing.
   */
  readonly digest?: string;
}

/** What became of one fetched payload, for the scheduler (status, dividends, pending) and the metrics. */
export interface RaceOutcome {
  kind: 'changed' | 'unchanged' | 'rejected';
  /** Why a payload was rejected (`runners_missing`, `stale`, ...), and in words. */
  code?: string;
  reason?: string;
  /** Rows the payload's validation dropped (logged by the pipeline; counted by the caller). */
  droppedRows?: DroppedRow[];
  /** Status and dividend stage of the race's current document, when it has one. */
  status?: string;
  dividends?: DividendStage;
  /** Claims wait for confirmation (trust.ts): the same payload must be processed again to confirm them. */
  pending?: boolean;
  /** The paths of the claims this payload held back, when any. */
  held?: string[];
}

export interface TrackOptions extends Omit<DetectOptions, 'observedAt'>, TrustOptions {
  /** The race that was asked for; a payload about another race is rejected. */
  raceId?: string;
  /** Patch-to-document size ratio above which a snapshot is sent instead. */
  snapshotFraction?: number;
  /** The digest of the payload's data, kept in the next state when nothing waits on its repeats. */
  digest?: string;
}

export interface TrackResult {
  /** The race's state after the payload; after a rejected one, the state given (less its digest). */
  state: RaceState | undefined;
  /** To append to the log: a snapshot or a patch, then one entry per event; none unless `changed`. */
  entries: NewEntry[];
  outcome: RaceOutcome;
}

/** Why a payload gave nothing: `assessPayload`'s codes, or `stale` (older than the payload applied). */
export type RejectCode = AssessCode | 'stale';

/**
 * A race's state rebuilt from its document, after a restart or an eviction: with the log (the instant of
 * its last append and, when it still holds them all, its entries since seq 1) the payload order resumes and
 * the favourite is the one the log last reported; claims start afresh and the money memory empty (held
 * claims are delayed, a money window is quieter: never a false event).
 */
export function resumedState(
  document: RaceDocument,
  log?: { lastAppendedAt: number; entries?: readonly NewEntry[] },
): RaceState {
  const resumed = log !== undefined && Number.isFinite(log.lastAppendedAt);
  return {
    document,
    trust: resumed ? resumedTrust(log.lastAppendedAt) : EMPTY_TRUST,
    money: EMPTY_MONEY,
    favourite:
      resumed && log.entries
        ? reportedFavourite(log.entries, document)
        : (favouriteOf(document)?.key ?? null),
  };
}

/** The outcome of a payload whose data has the state's digest: the data the state was built from. */
export const repeatedOutcome = (state: RaceState): RaceOutcome => ({
  kind: 'unchanged',
  ...summary(state.document),
});

export function trackRace(
  state: RaceState | undefined,
  payload: EventResponse,
  now: number,
  opts: TrackOptions = {},
): TrackResult {
  const trust = state?.trust ?? EMPTY_TRUST;
  const rejection = rejectionOf(payload, state?.document, trust, opts.raceId);
  if (rejection) {
    // The data last taken is no longer the last data seen: its next repeat is processed again.
    const kept = state && { ...state, digest: undefined };
    const outcome: RaceOutcome = {
      kind: 'rejected',
      ...rejection,
      ...dropped(payload),
      ...summary(state?.document),
    };
    return { state: kept, entries: [], outcome };
  }
  const generatedTime = payload.header?.generated_time;
  const order = generatedTime === undefined ? trust.generatedTime : generatedTime;
  const observed = normaliseEvent(payload);
  if (!state) return firstSight(observed, { generatedTime: order, pending: {} }, payload, opts.digest);
  const prev = state.document;

  const { document, pending, held } = reconcile(prev, observed, trust, {
    now,
    confirmPayloads: opts.confirmPayloads,
    confirmMs: opts.confirmMs,
    unknown: unknownCollections(payload.droppedRows),
  });
  const ops = diffDocuments(prev, document);
  // The favourite follows every runner: while any runner's claim is held (a price, a scratching, the whole
  // runner) the document mixes old and new, so no favourite is judged; once none is held it is judged
  // against the one last reported.
  const judged = !held.some((path) => path.startsWith('/runners/'));
  const detected = detectEvents(
    prev,
    document,
    { ...opts, observedAt: now },
    { favourite: judged ? state.favourite : undefined, money: state.money },
  );
  const waiting = Object.keys(pending).length > 0;
  const changed = ops.length > 0 || detected.events.length > 0;
  const next: RaceState = {
    document: changed ? document : prev,
    trust: { generatedTime: order, pending },
    money: detected.money ?? EMPTY_MONEY,
    favourite: judged ? (favouriteOf(document)?.key ?? null) : state.favourite,
    // A payload that left claims waiting must be processed again: its repeats are what confirm them.
    digest: waiting ? undefined : opts.digest,
  };
  const outcome: RaceOutcome = {
    kind: changed ? 'changed' : 'unchanged',
    ...dropped(payload),
    ...(waiting ? { pending: true } : {}),
    ...(held.length > 0 ? { held } : {}),
    ...summary(next.document),
  };
  if (!changed) return { state: next, entries: [], outcome };
  const entries: NewEntry[] = [
    shouldSnapshot(ops, document, opts.snapshotFraction ?? SNAPSHOT_FRACTION)
      ? { kind: 'snapshot', document }
      : { kind: 'patch', ops },
  ];
  const meetingId = document.race.meeting_id;
  const raceId = document.race.event_id;
  for (const event of detected.events) {
    entries.push({ kind: 'event', event: { type: event.type, data: event.data, meetingId, raceId } });
  }
  return { state: next, entries, outcome };
}

/** A race's first observation: a snapshot, and the state it starts. */
function firstSight(
  document: RaceDocument,
  trust: TrustState,
  payload: EventResponse,
  digest: string | undefined,
): TrackResult {
  const favourite = favouriteOf(document)?.key ?? null;
  return {
    state: { document, trust, money: EMPTY_MONEY, favourite, digest },
    entries: [{ kind: 'snapshot', document }],
    outcome: { kind: 'changed', ...dropped(payload), ...summary(document) },
  };
}

/** Why the payload is refused (nothing of it is used), or undefined when it is usable. */
function rejectionOf(
  payload: EventResponse,
  prev: RaceDocument | undefined,
  trust: TrustState,
  raceId: string | undefined,
): { code: RejectCode; reason: string } | undefined {
  const verdict = assessPayload(payload, { raceId, prev });
  if (!verdict.ok) return { code: verdict.code, reason: verdict.reason };
  const generatedTime = payload.header?.generated_time;
  if (!generatedBefore(generatedTime, trust.generatedTime)) return undefined;
  return {
    code: 'stale',
    reason: `generated ${generatedTime}, before the payload applied (${trust.generatedTime})`,
  };
}

const dropped = (payload: EventResponse): { droppedRows?: DroppedRow[] } =>
  payload.droppedRows && payload.droppedRows.length > 0 ? { droppedRows: payload.droppedRows } : {};

/** What the scheduler wants to know of a document: its status and whether dividends are Final. */
function summary(doc: RaceDocument | undefined): Pick<RaceOutcome, 'status' | 'dividends'> {
  if (!doc) return {};
  const dividends = Object.values(doc.dividends ?? {}) as Array<{ status?: string }>;
  const stage = dividends.some((d) => d.status === 'Final')
    ? 'final'
    : dividends.length > 0
      ? 'interim'
      : 'none';
  return { status: doc.race.status, dividends: stage };
}

/** The collections a dropped row came from (`data.results[2]` -> results). */
function unknownCollections(dropped: readonly DroppedRow[] | undefined): UnknownCollections {
  const out = new Set<'runners' | 'results' | 'dividends'>();
  for (const row of dropped ?? []) {
    const m = /^data\.(runners|results|dividends)\[/.exec(row.path);
    if (m) out.add(m[1] as 'runners' | 'results' | 'dividends');
  }
  return out;
}
