/**
 * The polling loop: the thin adapter around the pure scheduler. A few workers each ask the scheduler what to
 * fetch, fetch it through the racing client (whose one limiter holds every request to the budget), and hand
 * the result on: /meetings to discovery, /events payloads to the race pipeline. Idle workers sleep on the
 * clock until the next fetch is due or something wakes them (a subscription, a dirty race).
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { EventResponse, Meeting, MeetingsResponse } from '../upstream/schemas.js';
import { applyMeetings } from './discovery.js';
import { type DividendStage, FINISHED_STATUSES, type RaceWatch } from './race-watch.js';
import { type Pick, pickNext, type SchedulerInput } from './scheduler.js';

/** What the poller needs of the racing client. */
export interface RaceSource {
  meetings(
    query: { dateFrom: string; dateTo: string },
    opts?: { priority?: number; signal?: AbortSignal },
  ): Promise<MeetingsResponse>;
  event(id: string, opts?: { priority?: number; signal?: AbortSignal }): Promise<EventResponse>;
}

/** What became of one fetched payload, as the race pipeline reports it. */
export interface RaceOutcome {
  kind: 'changed' | 'unchanged' | 'rejected';
  /** Why a payload was rejected (`runners_missing`, ...). */
  code?: string;
  /** Status and dividend stage of the race's current document, when it has one. */
  status?: string;
  dividends?: DividendStage;
}

export interface PollerDeps {
  source: RaceSource;
  clock: Clock;
  logger: Logger;
  /** Turns a payload into patches and events; must never throw for a bad payload (reject it instead). */
  onEvent: (raceId: string, payload: EventResponse) => Promise<RaceOutcome>;
  /** Receives every successful discovery (for meeting-level events). */
  onMeetings?: (meetings: Meeting[]) => Promise<void>;
  subscribers: () => ReadonlyMap<string, number>;
  discoveryIntervalMs: number;
  /** Concurrent fetches; the limiter, not this, bounds the rate. */
  concurrency?: number;
  /** The scheduling decision; the default is racewire's scheduler (benchmarks plug in baselines). */
  strategy?: (input: SchedulerInput) => Pick;
}

/** The day's races as one node knows them: the poller's own, or (on a follower) the leader's, shared. */
export interface RaceView {
  races(): ReadonlyMap<string, RaceWatch>;
  /** Milliseconds since the race's last usable payload, or undefined if it never had one. */
  staleness(raceId: string): number | undefined;
  lastDiscoveryAt(): number | undefined;
}

export interface Poller extends RaceView {
  start(): void;
  stop(): Promise<void>;
}

const DAY = 86_400_000;
/**
 * Limiter priorities. The scheduler has already chosen what matters most; the limiter's queue must not undo
 * that. Discovery and urgent fetches overtake routine ones (a routine near-jump fetch must never starve
 * discovery, which is how every race's status change is seen).
 */
const PRIORITY = { discovery: 1000, urgent: 900 } as const;
const routinePriority = (weight: number) => Math.min(800, Math.round(weight * 10));
const IDLE_RECHECK_MS = 1_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function createPoller(deps: PollerDeps): Poller {
  const { clock, logger } = deps;
  const strategy = deps.strategy ?? pickNext;
  let races = new Map<string, RaceWatch>();
  const inFlight = new Set<string>();
  let discoveryInFlight = false;
  let discoveryDueAt = 0;
  let discoveredAt: number | undefined;
  let discoveryFailures = 0;
  let running = false;
  // Aborted by stop(): requests still queued or waiting for the budget are dropped, not sent.
  let stopping = new AbortController();
  let wake = new AbortController();
  const workers: Promise<void>[] = [];

  const nudge = () => {
    const old = wake;
    wake = new AbortController();
    old.abort();
  };

  const update = (raceId: string, patch: Partial<RaceWatch>) => {
    const race = races.get(raceId);
    if (race) races.set(raceId, { ...race, ...patch });
  };

  async function discover(): Promise<void> {
    const now = clock.now();
    // Racing days are local: at any UTC instant, meetings dated yesterday, today and tomorrow can be live.
    const query = { dateFrom: isoDate(now - DAY), dateTo: isoDate(now + DAY) };
    try {
      const response = await deps.source.meetings(query, {
        priority: PRIORITY.discovery,
        signal: stopping.signal,
      });
      const echoed = response.params;
      if (
        echoed &&
        typeof echoed.date_from === 'string' &&
        !String(echoed.date_from).startsWith(query.dateFrom)
      ) {
        logger.warn(
          { asked: query, echoed: { from: echoed.date_from, to: echoed.date_to } },
          'upstream echoed other dates',
        );
      }
      const result = applyMeetings(races, response.data.meetings, clock.now());
      races = result.races;
      discoveredAt = clock.now();
      discoveryFailures = 0;
      discoveryDueAt = discoveredAt + deps.discoveryIntervalMs;
      if (result.added.length || result.changed.length) {
        logger.debug({ added: result.added.length, changed: result.changed.length }, 'discovery');
      }
      await deps.onMeetings?.(response.data.meetings);
    } catch (err) {
      if (stopping.signal.aborted) return;
      discoveryFailures++;
      discoveryDueAt = clock.now() + Math.min(60_000, deps.discoveryIntervalMs * 2 ** discoveryFailures);
      logger.warn({ err: describe(err), failures: discoveryFailures }, 'discovery failed');
    }
  }

  async function fetchRace(raceId: string, priority: number): Promise<void> {
    try {
      const payload = await deps.source.event(raceId, { priority, signal: stopping.signal });
      const outcome = await deps.onEvent(raceId, payload);
      const now = clock.now();
      if (outcome.kind === 'rejected') {
        update(raceId, { lastFetchAt: now, failures: (races.get(raceId)?.failures ?? 0) + 1 });
        return;
      }
      const race = races.get(raceId);
      const status = outcome.status ?? race?.status;
      update(raceId, {
        lastFetchAt: now,
        lastGoodAt: now,
        failures: 0,
        dirty: false,
        ...(status ? { status } : {}),
        dividends: outcome.dividends ?? 'none',
        finishedAt: race?.finishedAt ?? (status && FINISHED_STATUSES.has(status) ? now : undefined),
      });
    } catch (err) {
      if (stopping.signal.aborted) return;
      update(raceId, { lastFetchAt: clock.now(), failures: (races.get(raceId)?.failures ?? 0) + 1 });
      logger.warn({ raceId, err: describe(err) }, 'race fetch failed');
    }
  }

  async function work(): Promise<void> {
    while (running) {
      const pick = strategy({
        races: races.values(),
        now: clock.now(),
        inFlight,
        subscribers: deps.subscribers(),
        discoveryDueAt,
        discoveryInFlight,
      });
      if (pick.kind === 'discovery') {
        discoveryInFlight = true;
        await discover().finally(() => {
          discoveryInFlight = false;
        });
        nudge();
      } else if (pick.kind === 'race') {
        inFlight.add(pick.raceId);
        await fetchRace(pick.raceId, pick.urgent ? PRIORITY.urgent : routinePriority(pick.weight)).finally(
          () => inFlight.delete(pick.raceId),
        );
      } else {
        // Re-check at least every second: a new subscription makes a race urgent without telling the poller.
        const wait = Math.min(IDLE_RECHECK_MS, Math.max(1, pick.until - clock.now()));
        await clock.sleep(wait, wake.signal).catch(() => {});
      }
    }
  }

  return {
    start() {
      if (running) return;
      running = true;
      stopping = new AbortController();
      for (let i = 0; i < (deps.concurrency ?? 2); i++) workers.push(work());
    },
    async stop() {
      running = false;
      stopping.abort(new Error('poller stopped'));
      nudge();
      await Promise.all(workers.splice(0));
    },
    races: () => races,
    staleness(raceId) {
      const at = races.get(raceId)?.lastGoodAt;
      return at === undefined ? undefined : clock.now() - at;
    },
    lastDiscoveryAt: () => discoveredAt,
  };
}

function describe(err: unknown): { name?: string; code?: string; message: string } {
  if (err instanceof Error)
    return { name: err.name, code: (err as { code?: string }).code, message: err.message };
  return { message: String(err) };
}
