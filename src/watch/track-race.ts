/**
 * One tracker step for a race, pure: assess -> order -> normalise -> trust -> diff -> detect. The caller
 * (race pipeline) appends the entries to the event log, which numbers them; a first observation is a
 * snapshot only. The trust state (payload order and claims awaiting confirmation, see trust.ts) goes in
 * and comes out with every result but a rejection.
 */
import type { DetectedRaceEvent } from '@racewire/client/protocol';
import type { NewEntry } from '../events/envelope.js';
import type { DroppedRow, EventResponse } from '../upstream/schemas.js';
import { detectEvents } from './detect.js';
import { raceContext, runnersOf } from './detect-context.js';
import { favouriteEvents, favouriteOf } from './detect-odds.js';
import type { DetectOptions } from './detect-options.js';
import { diffDocuments, SNAPSHOT_FRACTION, shouldSnapshot } from './diff.js';
import { generatedBefore } from './generated-time.js';
import { type AssessCode, assessPayload, normaliseEvent, type RaceDocument } from './normalise.js';
import {
  EMPTY_TRUST,
  reconcile,
  type TrustOptions,
  type TrustState,
  type UnknownCollections,
} from './trust.js';

export type { RaceDocument } from './normalise.js';
export type { TrustState } from './trust.js';

export interface TrackOptions extends DetectOptions, TrustOptions {
  /** The race that was asked for; a payload about another race is rejected. */
  raceId?: string;
  /** Patch-to-document size ratio above which a snapshot is sent instead. */
  snapshotFraction?: number;
  /** What the previous step returned; absent on a first observation or after a restart. */
  trust?: TrustState;
}

/** Why a payload gave nothing: `assessPayload`'s codes, or `stale` (older than the payload applied). */
export type RejectCode = AssessCode | 'stale';

export type TrackResult =
  | { kind: 'rejected'; code: RejectCode; reason: string }
  | { kind: 'unchanged'; trust: TrustState; held: string[] }
  | { kind: 'changed'; document: RaceDocument; entries: NewEntry[]; trust: TrustState; held: string[] };

/** The collections a dropped row came from (`data.results[2]` -> results). */
function unknownCollections(dropped: readonly DroppedRow[] | undefined): UnknownCollections {
  const out = new Set<'runners' | 'results' | 'dividends'>();
  for (const row of dropped ?? []) {
    const m = /^data\.(runners|results|dividends)\[/.exec(row.path);
    if (m) out.add(m[1] as 'runners' | 'results' | 'dividends');
  }
  return out;
}

export function trackRace(
  prev: RaceDocument | undefined,
  payload: EventResponse,
  opts: TrackOptions = {},
): TrackResult {
  const verdict = assessPayload(payload, { raceId: opts.raceId, prev });
  if (!verdict.ok) return { kind: 'rejected', code: verdict.code, reason: verdict.reason };
  const state = opts.trust ?? EMPTY_TRUST;
  const generatedTime = payload.header?.generated_time;
  if (generatedBefore(generatedTime, state.generatedTime)) {
    return {
      kind: 'rejected',
      code: 'stale',
      reason: `generated ${generatedTime}, before the payload applied (${state.generatedTime})`,
    };
  }
  const order = generatedTime === undefined ? state.generatedTime : generatedTime;
  const observed = normaliseEvent(payload);
  if (!prev) {
    return {
      kind: 'changed',
      document: observed,
      entries: [{ kind: 'snapshot', document: observed }],
      trust: { generatedTime: order, pending: {} },
      held: [],
    };
  }

  const { document, pending, held } = reconcile(prev, observed, state, {
    now: opts.observedAt ?? 0,
    confirmPayloads: opts.confirmPayloads,
    confirmMs: opts.confirmMs,
    unknown: unknownCollections(payload.droppedRows),
  });
  const trust: TrustState = { generatedTime: order, pending };
  const ops = diffDocuments(prev, document);
  const events = detectEvents(prev, document, opts);
  // The favourite follows every runner: while any runner's claim is held (a price, a scratching, the whole
  // runner) the document mixes old and new, so no favourite is reported; once none is held it is reported
  // against the one last reported.
  const reportedKey = state.favourite === undefined ? favouriteOf(prev)?.key : state.favourite;
  const at = events.findIndex(
    (e) => e.type === 'race.favourite_changed' || e.type === 'race.results' || e.type === 'race.dividends',
  );
  const rest: DetectedRaceEvent[] = events.filter((e) => e.type !== 'race.favourite_changed');
  if (held.some((path) => path.startsWith('/runners/'))) {
    trust.favourite = reportedKey ?? null;
  } else {
    const reported = reportedKey ? runnersOf(document).get(reportedKey) : undefined;
    const from = reportedKey && reported ? { key: reportedKey, runner: reported } : undefined;
    rest.splice(at === -1 ? rest.length : at, 0, ...favouriteEvents(from, document, raceContext(document)));
  }
  if (ops.length === 0 && rest.length === 0) return { kind: 'unchanged', trust, held };
  const entries: NewEntry[] = [
    shouldSnapshot(ops, document, opts.snapshotFraction ?? SNAPSHOT_FRACTION)
      ? { kind: 'snapshot', document }
      : { kind: 'patch', ops },
  ];
  const meetingId = document.race.meeting_id;
  const raceId = document.race.event_id;
  for (const event of rest) {
    entries.push({ kind: 'event', event: { type: event.type, data: event.data, meetingId, raceId } });
  }
  return { kind: 'changed', document, entries, trust, held };
}
