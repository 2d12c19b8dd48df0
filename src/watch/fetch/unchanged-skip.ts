/**
 * Skips what did not change: fetches a race with the digest of the data its state was built from
 * (`upstream/data-digest.ts`), which the tracker keeps in the race's state while nothing waits on that data's
 * repeats (track-race.ts), and answers a payload with the same digest from the state, without parsing,
 * validating, normalising or diffing it. Any other payload is processed in full, with its digest for the
 * tracker to keep or not. A race whose state is not in memory (evicted, or a restart of the polling role,
 * which builds a fresh pipeline) has no digest: its next payload is processed in full, which costs time,
 * never an event.
 */
import type { ConditionalEvent, EventOptions } from '../../upstream/client.js';
import type { EventResponse } from '../../upstream/schemas.js';
import type { RaceOutcome } from '../track/track-race.js';

/** The racing client's conditional fetch. */
export interface ConditionalEventSource {
  eventIfChanged(
    id: string,
    known: string | undefined,
    opts?: EventOptions & { priority?: number; signal?: AbortSignal },
  ): Promise<ConditionalEvent>;
}

/** What the skip needs of the race pipeline (race-pipeline.ts). */
export interface RaceStates {
  digest(raceId: string): string | undefined;
  repeated(raceId: string): Promise<RaceOutcome>;
}

export interface UnchangedSkip {
  /** Fetches a race and hands a changed payload to `process`; an unchanged one is answered from its state. */
  fetch(
    raceId: string,
    opts: EventOptions & { priority?: number; signal?: AbortSignal },
    process: (raceId: string, payload: EventResponse, digest?: string) => Promise<RaceOutcome>,
  ): Promise<RaceOutcome>;
  /** Payloads answered without processing, and payloads processed, since creation. */
  counts(): { skipped: number; processed: number };
}

export function createUnchangedSkip(source: ConditionalEventSource, races: RaceStates): UnchangedSkip {
  const counts = { skipped: 0, processed: 0 };
  return {
    async fetch(raceId, opts, process) {
      const fetched = await source.eventIfChanged(raceId, races.digest(raceId), opts);
      if (fetched.kind === 'unchanged') {
        counts.skipped++;
        return races.repeated(raceId);
      }
      counts.processed++;
      return process(raceId, fetched.payload, fetched.digest);
    },
    counts: () => ({ ...counts }),
  };
}
