/**
 * The race pipeline's I/O shell: previous document in, pure tracker step, durable append, publish.
 * Documents are cached in memory and loaded from the log's head on first use, so a restart continues diffing
 * from the last stored document: no duplicate events, none missed. Each race's trust state (payload order,
 * claims awaiting confirmation, the favourite last reported: trust.ts) and money memory are kept beside it, in
 * one cache bounded in bytes that lets settled races go (race-states.ts); a restart or an eviction resumes the
 * order and the favourite from the log and starts the claims afresh, which only delays them.
 */
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { EventLog } from '../store/ports.js';
import type { DroppedRow, EventResponse } from '../upstream/schemas.js';
import { reportedFavourite } from './detect-odds.js';
import type { MarketThresholds } from './market-thresholds.js';
import { MoneyMemory } from './money-flow.js';
import { createRaceStates, type RaceState, type RaceStateLimits } from './race-states.js';
import type { DividendStage } from './race-watch.js';
import { type RaceDocument, type TrustState, trackRace } from './track-race.js';
import { resumedTrust } from './trust.js';

/** What became of one fetched payload, as the race pipeline reports it. */
export interface RaceOutcome {
  kind: 'changed' | 'unchanged' | 'rejected';
  /** Why a payload was rejected (`runners_missing`, `stale`, ...). */
  code?: string;
  /** Rows the payload's validation dropped (logged by the pipeline; counted by the caller). */
  droppedRows?: DroppedRow[];
  /** Status and dividend stage of the race's current document, when it has one. */
  status?: string;
  dividends?: DividendStage;
  /** Claims wait for confirmation (trust.ts): the same payload must be processed again to confirm them. */
  pending?: boolean;
}

export interface RacePipeline {
  process(raceId: string, payload: EventResponse): Promise<RaceOutcome>;
  /** The current document of a race (from cache or the log). */
  document(raceId: string): Promise<RaceDocument | undefined>;
  /** Races whose state is held in memory and the bytes of their documents. */
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

  /** The race's state, from the cache or (after a restart or an eviction) resumed from the log. */
  async function current(raceId: string): Promise<RaceState | undefined> {
    const cached = states.get(raceId);
    if (cached) return cached;
    const head = await deps.log.head(raceId);
    const document = head.document as RaceDocument | undefined;
    if (!document) return undefined;
    // The payload order resumes from the last change the log holds, and the favourite from the one it last
    // reported (a trimmed log falls back to the document's); the money memory starts empty.
    const all = await deps.log.read(raceId, 0);
    const last = all.ok ? all : await deps.log.read(raceId, head.seq - 1);
    const at = last.ok ? Date.parse(last.entries.at(-1)?.timestamp ?? '') : Number.NaN;
    const favourite = all.ok ? reportedFavourite(all.entries, document) : undefined;
    const state: RaceState = {
      document,
      money: new MoneyMemory(),
      ...(Number.isFinite(at) ? { trust: resumedTrust(at, favourite) } : {}),
    };
    states.set(raceId, state);
    return state;
  }

  async function step(raceId: string, payload: EventResponse): Promise<RaceOutcome> {
    states.releaseSettled();
    const state = await current(raceId);
    const prev = state?.document;
    const money = state?.money ?? new MoneyMemory();
    const dropped = payload.droppedRows ?? [];
    for (const row of dropped) {
      deps.logger.warn({ raceId, code: row.code, path: row.path, reason: row.reason }, 'row dropped');
    }
    const droppedRows = dropped.length > 0 ? { droppedRows: dropped } : {};
    const result = trackRace(prev, payload, {
      raceId,
      observedAt: deps.clock.now(),
      market: { thresholds: deps.market, money },
      trust: state?.trust,
    });
    if (result.kind === 'rejected') {
      deps.logger.warn({ raceId, code: result.code, reason: result.reason }, 'payload rejected: no events');
      return { kind: 'rejected', code: result.code, ...droppedRows, ...summary(prev) };
    }
    if (result.held.length > 0) deps.logger.info({ raceId, held: result.held }, 'held until confirmed');
    if (result.kind === 'unchanged') {
      if (state) states.set(raceId, { ...state, trust: result.trust });
      return { kind: 'unchanged', ...droppedRows, ...pendingOf(result.trust), ...summary(prev) };
    }
    let entries: Awaited<ReturnType<EventLog['append']>>;
    try {
      entries = await deps.log.append(raceId, {
        entries: result.entries,
        document: result.document,
        now: new Date(deps.clock.now()),
      });
    } catch (err) {
      // A failed append may still have been written (a reply lost on the way back): diff the next payload
      // against what the log holds, not against the cache, so no event is made twice.
      states.delete(raceId);
      throw err;
    }
    states.set(raceId, { document: result.document, trust: result.trust, money });
    deps.bus.publish(entries);
    return { kind: 'changed', ...droppedRows, ...pendingOf(result.trust), ...summary(result.document) };
  }

  return {
    process(raceId, payload) {
      const run = (tails.get(raceId) ?? Promise.resolve()).then(() => step(raceId, payload));
      const tail = run.catch(() => {});
      tails.set(raceId, tail);
      void tail.then(() => {
        if (tails.get(raceId) === tail) tails.delete(raceId);
      });
      return run;
    },
    document: async (raceId) => (await current(raceId))?.document,
    cached: () => states.stats(),
  };
}

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

function pendingOf(state: TrustState): { pending?: true } {
  return Object.keys(state.pending).length > 0 ? { pending: true } : {};
}
