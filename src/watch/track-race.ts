/**
 * One tracker step for a race, pure: assess -> normalise -> diff -> detect. The caller (race pipeline)
 * appends the entries to the event log, which numbers them; a first observation is a snapshot only.
 */
import type { NewEntry } from '../events/envelope.js';
import type { EventResponse } from '../upstream/schemas.js';
import { detectEvents } from './detect.js';
import type { DetectOptions } from './detect-context.js';
import { diffDocuments, SNAPSHOT_FRACTION, shouldSnapshot } from './diff.js';
import { type AssessCode, assessPayload, normaliseEvent, type RaceDocument } from './normalise.js';

export type { RaceDocument } from './normalise.js';

export interface TrackOptions extends DetectOptions {
  /** The race that was asked for; a payload about another race is rejected. */
  raceId?: string;
  /** Patch-to-document size ratio above which a snapshot is sent instead. */
  snapshotFraction?: number;
}

export type TrackResult =
  | { kind: 'rejected'; code: AssessCode; reason: string }
  | { kind: 'unchanged' }
  | { kind: 'changed'; document: RaceDocument; entries: NewEntry[] };

export function trackRace(
  prev: RaceDocument | undefined,
  payload: EventResponse,
  opts: TrackOptions = {},
): TrackResult {
  const verdict = assessPayload(payload, { raceId: opts.raceId, prev });
  if (!verdict.ok) return { kind: 'rejected', code: verdict.code, reason: verdict.reason };
  const document = normaliseEvent(payload);
  if (!prev) return { kind: 'changed', document, entries: [{ kind: 'snapshot', document }] };

  const ops = diffDocuments(prev, document);
  if (ops.length === 0) return { kind: 'unchanged' };
  const entries: NewEntry[] = [
    shouldSnapshot(ops, document, opts.snapshotFraction ?? SNAPSHOT_FRACTION)
      ? { kind: 'snapshot', document }
      : { kind: 'patch', ops },
  ];
  const meetingId = document.race.meeting_id;
  const raceId = document.race.event_id;
  for (const event of detectEvents(prev, document, opts)) {
    entries.push({ kind: 'event', event: { type: event.type, data: event.data, meetingId, raceId } });
  }
  return { kind: 'changed', document, entries };
}
