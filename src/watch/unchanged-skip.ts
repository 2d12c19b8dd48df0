/**
 * Skips what did not change: remembers, per race, the digest of the `data` the race's document was last
 * built from (`upstream/data-digest.ts`) and answers a payload with the same digest with the outcome it had
 * then, without parsing, validating, normalising or diffing it. A digest is remembered only after the
 * pipeline took its payload (changed or unchanged) with no claim left waiting for confirmation (trust.ts: the
 * repeats of a payload are what confirm a disappearance); a rejected payload, a failed step or a restart of the
 * polling role (a fresh skip) forgets it, so the next payload is processed in full. At most MAX_RACES races
 * are remembered (least recently fetched forgotten first): forgetting costs one full processing, never an event.
 */
import { LRUCache } from 'lru-cache';
import type { ConditionalEvent, EventOptions } from '../upstream/client.js';
import type { EventResponse } from '../upstream/schemas.js';
import type { RaceOutcome } from './race-pipeline.js';

/** The racing client's conditional fetch. */
export interface ConditionalEventSource {
  eventIfChanged(
    id: string,
    known: string | undefined,
    opts?: EventOptions & { priority?: number; signal?: AbortSignal },
  ): Promise<ConditionalEvent>;
}

export interface UnchangedSkip {
  /** Fetches a race and hands a changed payload to `process`; an unchanged one is answered from memory. */
  fetch(
    raceId: string,
    opts: EventOptions & { priority?: number; signal?: AbortSignal },
    process: (raceId: string, payload: EventResponse) => Promise<RaceOutcome>,
  ): Promise<RaceOutcome>;
  /** Payloads answered without processing, and payloads processed, since creation. */
  counts(): { skipped: number; processed: number };
}

/** Two overlapping race days of about 750 races each, with room to spare. */
export const MAX_RACES = 2_048;

export function createUnchangedSkip(source: ConditionalEventSource, maxRaces = MAX_RACES): UnchangedSkip {
  const taken = new LRUCache<string, { digest: string; outcome: RaceOutcome }>({ max: maxRaces });
  const counts = { skipped: 0, processed: 0 };
  return {
    async fetch(raceId, opts, process) {
      const known = taken.get(raceId);
      const fetched = await source.eventIfChanged(raceId, known?.digest, opts);
      if (fetched.kind === 'unchanged' && known) {
        counts.skipped++;
        return known.outcome;
      }
      if (fetched.kind === 'unchanged') throw new Error('unreachable: unchanged without a known digest');
      taken.delete(raceId);
      counts.processed++;
      const outcome = await process(raceId, fetched.payload);
      // A payload that left claims waiting for confirmation must be seen again: its repeat confirms them.
      if (outcome.kind !== 'rejected' && !outcome.pending && fetched.digest !== undefined) {
        taken.set(raceId, { digest: fetched.digest, outcome: { ...outcome, kind: 'unchanged' } });
      }
      return outcome;
    },
    counts: () => ({ ...counts }),
  };
}
