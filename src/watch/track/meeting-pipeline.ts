/**
 * Meeting streams: each meeting's record from discovery (its races with status and start) is the document of
 * stream `meeting:<id>`, so a meeting subscriber sees races added, removed, delayed or changing status as
 * patches, plus meeting-level events. The first sight of a meeting is a snapshot without events. A race
 * missing from a list or a status going back is held until confirmed (meeting-trust.ts); what is pending
 * is kept in memory, so a restart only starts confirmations afresh. Both are kept while a meeting is listed:
 * a meeting not listed for MEETING_IDLE_MS of race time is forgotten (discovery lists about two days, so a
 * meeting's day is over by then), and at most MAX_MEETINGS are kept (least recently listed forgotten first). A
 * forgotten document is read back from the log's head and forgotten claims start afresh, as after a restart.
 */
import { LRUCache } from 'lru-cache';
import type { Bus } from '../../bus/bus.js';
import type { Clock } from '../../clock.js';
import { idleCacheOptions } from '../../clock-cache.js';
import { meetingStreamId, type NewEntry } from '../../events/envelope.js';
import type { EventLog } from '../../store/ports.js';
import type { Meeting } from '../../upstream/schemas.js';
import { detectMeetingChanges } from '../detect/detect-meetings.js';
import { diffDocuments, shouldSnapshot } from './diff.js';
import { reconcileMeeting } from './meeting-trust.js';
import { toJsonValue } from './normalise.js';
import type { PendingClaim } from './trust.js';

export interface MeetingPipeline {
  process(meetings: Meeting[]): Promise<void>;
}

/** The meetings of the days discovery lists at once (about 2 of up to 200 meetings each), with room to spare. */
export const MAX_MEETINGS = 1_024;

/**
 * A meeting not listed for this long (race time) is forgotten. Without it the cache filled only with the
 * count bound: about 75 meetings a race day, so two weeks of growth (the Redis soak's heap after GC rose
 * about 0.5 MB a race day, docs/benchmarks.md).
 */
export const MEETING_IDLE_MS = 12 * 3_600_000;

export function createMeetingPipeline(deps: {
  log: EventLog;
  bus: Bus;
  clock: Clock;
  /** @default MAX_MEETINGS */
  maxMeetings?: number;
}): MeetingPipeline {
  // Race time: every read of an entry (a listing) renews it, and what is idle goes at the next process.
  const options = idleCacheOptions(deps.clock, deps.maxMeetings ?? MAX_MEETINGS, MEETING_IDLE_MS);
  const documents = new LRUCache<string, Meeting>(options);
  const pendingClaims = new LRUCache<string, Record<string, PendingClaim>>(options);

  async function previous(stream: string): Promise<Meeting | undefined> {
    const cached = documents.get(stream);
    if (cached) return cached;
    const doc = (await deps.log.head(stream)).document as Meeting | undefined;
    if (doc) documents.set(stream, doc);
    return doc;
  }

  return {
    async process(meetings) {
      documents.purgeStale();
      pendingClaims.purgeStale();
      for (const raw of meetings) {
        // A JSON copy drops undefined members, which JSON Patch cannot express (one pass, not a round trip
        // through text: every listed meeting is copied on every /meetings page).
        const listed = toJsonValue(raw) as Meeting;
        const stream = meetingStreamId(listed.meeting);
        const prev = await previous(stream);
        let next = listed;
        if (prev) {
          const trusted = reconcileMeeting(prev, listed, pendingClaims.get(stream) ?? {}, {
            now: deps.clock.now(),
          });
          next = trusted.meeting;
          pendingClaims.set(stream, trusted.pending);
        }
        const entries: NewEntry[] = [];
        if (!prev) {
          entries.push({ kind: 'snapshot', document: next });
        } else {
          const ops = diffDocuments(prev, next);
          if (ops.length === 0) continue;
          entries.push(
            shouldSnapshot(ops, next) ? { kind: 'snapshot', document: next } : { kind: 'patch', ops },
          );
          for (const event of detectMeetingChanges([prev], [next])) {
            entries.push({ kind: 'event', event: { ...event, meetingId: next.meeting } });
          }
        }
        let appended: Awaited<ReturnType<EventLog['append']>>;
        try {
          appended = await deps.log.append(stream, {
            entries,
            document: next,
            now: new Date(deps.clock.now()),
          });
        } catch (err) {
          // A failed append may still have been written (a reply lost on the way back): diff the next list
          // against what the log holds, not against the cache, so no patch is made on the wrong base.
          documents.delete(stream);
          throw err;
        }
        documents.set(stream, next);
        deps.bus.publish(appended);
      }
    },
  };
}
