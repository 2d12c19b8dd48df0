/**
 * The race pipeline's I/O shell: the race's state in, the pure tracker step (track-race.ts), durable append,
 * publish, the next state kept. States are kept in one cache bounded in bytes that lets settled races go
 * (race-states.ts); a race not in it (first use, a restart, an eviction) has its state rebuilt from the log,
 * so a restart continues diffing from the last stored document: no duplicate events, none missed.
 */
import type { Bus } from '../../bus/bus.js';
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { EventLog } from '../../store/ports.js';
import type { EventResponse } from '../../upstream/schemas.js';
import type { MarketThresholds } from '../detect/market-thresholds.js';
import { createRaceStates, type RaceStateLimits } from './race-states.js';
import {
  type RaceDocument,
  type RaceOutcome,
  type RaceState,
  repeatedOutcome,
  resumedState,
  trackRace,
} from './track-race.js';

export interface RacePipeline {
  /** Tracks one payload; `digest` is its data's (upstream/data-digest.ts), when the fetch computed one. */
  process(raceId: string, payload: EventResponse, digest?: string): Promise<RaceOutcome>;
  /** The digest of the data the race's state was built from, while a payload with it needs no processing. */
  digest(raceId: string): string | undefined;
  /** Answers a payload whose data has the race's digest, without processing it. */
  repeated(raceId: string): Promise<RaceOutcome>;
  /** The current document of a race (from cache or the log). */
  document(raceId: string): Promise<RaceDocument | undefined>;
  /** Races whose state is held in memory and the bytes of their states. */
  cached(): { races: number; bytes: number };
}

export function createRacePipeline(deps: {
  log: EventLog;
  bus: Bus;
  clock: Clock;
  logger: Logger;
  /** Market event thresholds (default: market-thresholds.ts). */
  market?: MarketThresholds;
  /** Bounds of the per-race state held in memory (race-states.ts). */
  limits?: RaceStateLimits;
}): RacePipeline {
  const states = createRaceStates(deps.clock, deps.limits);
  // One change per race at a time: the poller never fetches a race twice at once, but be safe.
  const tails = new Map<string, Promise<unknown>>();

  /** The race's state, from the cache or (after a restart or an eviction) rebuilt from the log. */
  async function current(raceId: string): Promise<RaceState | undefined> {
    const cached = states.get(raceId);
    if (cached) return cached;
    const head = await deps.log.head(raceId);
    const document = head.document as RaceDocument | undefined;
    if (!document) return undefined;
    // The payload order resumes from the last change the log holds, and the favourite from the one it last
    // reported (a trimmed log falls back to the document's).
    const all = await deps.log.read(raceId, 0);
    const last = all.ok ? all : await deps.log.read(raceId, head.seq - 1);
    const lastAppendedAt = last.ok ? Date.parse(last.entries.at(-1)?.timestamp ?? '') : Number.NaN;
    const state = resumedState(document, { lastAppendedAt, ...(all.ok ? { entries: all.entries } : {}) });
    states.set(raceId, state);
    return state;
  }

  async function step(raceId: string, payload: EventResponse, digest?: string): Promise<RaceOutcome> {
    states.releaseSettled();
    for (const row of payload.droppedRows ?? []) {
      deps.logger.warn({ raceId, code: row.code, path: row.path, reason: row.reason }, 'row dropped');
    }
    const { state, entries, outcome } = trackRace(await current(raceId), payload, deps.clock.now(), {
      raceId,
      market: { thresholds: deps.market },
      digest,
    });
    if (outcome.kind === 'rejected') {
      deps.logger.warn({ raceId, code: outcome.code, reason: outcome.reason }, 'payload rejected: no events');
    } else if (outcome.held) {
      deps.logger.info({ raceId, held: outcome.held }, 'held until confirmed');
    }
    if (entries.length > 0 && state) {
      let appended: Awaited<ReturnType<EventLog['append']>>;
      try {
        appended = await deps.log.append(raceId, {
          entries,
          document: state.document,
          now: new Date(deps.clock.now()),
        });
      } catch (err) {
        // A failed append may still have been written (a reply lost on the way back): diff the next payload
        // against what the log holds, not against the cache, so no event is made twice.
        states.delete(raceId);
        throw err;
      }
      states.set(raceId, state);
      deps.bus.publish(appended);
    } else if (state) {
      states.set(raceId, state);
    }
    return outcome;
  }

  /** Runs `task` after the race's earlier ones. */
  function serial<T>(raceId: string, task: () => Promise<T>): Promise<T> {
    const run = (tails.get(raceId) ?? Promise.resolve()).then(task);
    const tail = run.catch(() => {});
    tails.set(raceId, tail);
    void tail.then(() => {
      if (tails.get(raceId) === tail) tails.delete(raceId);
    });
    return run;
  }

  return {
    process: (raceId, payload, digest) => serial(raceId, () => step(raceId, payload, digest)),
    digest: (raceId) => states.get(raceId)?.digest,
    repeated: (raceId) =>
      serial(raceId, async () => {
        // The state may have been evicted since its digest was read: the log's head is the same document.
        const state = await current(raceId);
        if (!state) throw new Error(`race ${raceId}: no state to answer a repeated payload from`);
        return repeatedOutcome(state);
      }),
    document: async (raceId) => (await current(raceId))?.document,
    cached: () => states.stats(),
  };
}
