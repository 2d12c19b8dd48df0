/**
 * The polling loop: the thin adapter around the pure scheduler. A few workers each ask the scheduler what to
 * fetch, fetch it through the racing client (whose one limiter holds every request to the budget), and hand
 * the result on: /meetings to discovery, /events payloads to the race pipeline. Idle workers sleep on the
 * clock until the next fetch is due or something wakes them (a subscription, a dirty race).
 */
import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { EventOptions } from '../../upstream/client.js';
import type { DroppedRow, EventResponse, Meeting, MeetingsResponse } from '../../upstream/schemas.js';
import { WOKEN } from '../../wake-reason.js';
import { applyMeetings } from '../schedule/discovery.js';
import {
  AHEAD_INTERVAL_MS,
  currentWindows,
  type DayWindow,
  type DiscoveryStatus,
  dayCadence,
  discoveryStatus,
  type ListedDay,
  windowDueAt,
  windowsFromListed,
} from '../schedule/discovery-windows.js';
import { pollPolicy, SLICES, type Slice, sliceOf } from '../schedule/poll-policy.js';
import { type Pick, pickNext, type SchedulerInput, usesTurn } from '../schedule/scheduler.js';
import { FINISHED_STATUSES, type RaceWatch } from '../track/race-watch.js';
import type { RaceOutcome } from '../track/track-race.js';
import {
  DEFAULT_PAGE_SIZE,
  type DiscoveryAlarm,
  type MeetingsPageQuery,
  meetingPages,
} from './meetings-pager.js';
import type { UnchangedSkip } from './unchanged-skip.js';

interface SourceOptions {
  priority?: number;
  signal?: AbortSignal;
}

/** What the poller needs of the racing client. */
export interface RaceSource {
  meetings(query: MeetingsPageQuery, opts?: SourceOptions): Promise<MeetingsResponse>;
  event(id: string, opts?: EventOptions & SourceOptions): Promise<EventResponse>;
  /**
   * Resolves once a request made at that moment would start at once (the racing client's limiter). With it,
   * a worker picks what to fetch only then; without it, each pick waits its turn in the budget's queue.
   */
  whenReady?(signal?: AbortSignal): Promise<void>;
}

export interface PollerDeps {
  source: RaceSource;
  clock: Clock;
  logger: Logger;
  /**
   * Turns a payload into patches and events; must never throw for a bad payload (reject it instead).
   * `digest` is its data's, when fetched through `unchangedSkip`.
   */
  onEvent: (raceId: string, payload: EventResponse, digest?: string) => Promise<RaceOutcome>;
  /** Receives every successful discovery (for meeting-level events). */
  onMeetings?: (meetings: Meeting[]) => Promise<void>;
  /** Rows dropped from /meetings pages (each already logged with its path), for metrics. */
  onDroppedRows?: (rows: DroppedRow[]) => void;
  /** A day's listing stopped early but kept what it read (already logged), for metrics. */
  onDiscoveryAlarm?: (alarm: DiscoveryAlarm) => void;
  subscribers: () => ReadonlyMap<string, number>;
  /** Refresh interval of a day with live races (docs/upstream-client.md#discovery). */
  discoveryIntervalMs: number;
  /** `limit` of each /meetings page. @default 200 (the documented maximum) */
  discoveryPageSize?: number;
  /**
   * The optional /events members to ask for, by race and instant: the one place racewire decides it.
   * @default none (each adds bytes to every payload and patches to the document)
   */
  eventOptions?: (race: RaceWatch, now: number) => EventOptions;
  /** Concurrent fetches; the limiter, not this, bounds the rate. */
  concurrency?: number;
  /** The scheduling decision; the default is racewire's scheduler (benchmarks plug in baselines). */
  strategy?: (input: SchedulerInput) => Pick;
  /** Fetches /events through this instead of `source`, answering unchanged payloads without processing. */
  unchangedSkip?: UnchangedSkip;
  /** What the previous term left (handed-over.ts); a first term, or one that could not read it, knows nothing. */
  handedOver?: HandedOver;
}

/** A new term's start: its predecessor's races, listed days and fetches, as every node sees them. */
export interface HandedOver {
  /**
   * Race id -> clock ms of the previous term's last good fetch: the race has its data that old (`lastGoodAt`),
   * so among the races near their jump this term has not fetched yet it goes after those nobody fetched
   * lately (scheduler.ts).
   */
  fetchedBefore: ReadonlyMap<string, number>;
  /**
   * Race id -> clock ms of the previous term's last good fetch, whether or not the log still holds the
   * document (a wipe): orders the races near their jump this term has not fetched (`handedOverAt`).
   */
  fetchedLately: ReadonlyMap<string, number>;
  /** The races the previous listings showed (the meeting documents): known before this term lists a day. */
  races: ReadonlyMap<string, RaceWatch>;
  /** The days the previous term listed in full, and when: each is listed again when its cadence says. */
  days: readonly ListedDay[];
  /** When the previous term last listed a day (undefined: it had not). */
  discoveredAt?: number;
}

/** The day's races as one node knows them: the poller's own, or (on a follower) the leader's, shared. */
export interface RaceView {
  races(): ReadonlyMap<string, RaceWatch>;
  /** Milliseconds since the race's last usable payload, or undefined if it never had one. */
  staleness(raceId: string): number | undefined;
  lastDiscoveryAt(): number | undefined;
  /** The days listed in full and when (a follower: the leader's), which a new term starts with. */
  listedDays(): readonly ListedDay[];
}

/** Requests a minute by slice of the budget: discovery's, and each race slice's (poll-policy.ts). */
export type SliceCounts = Record<Slice | 'discovery', number>;

export interface Poller extends RaceView {
  /** Requests this poller started in the last 60 s (race clock), by slice. */
  spent(): SliceCounts;
  start(): void;
  stop(): Promise<void>;
  /** Whether each day of the window was listed, or why not (discovery-windows.ts). */
  discovery(): DiscoveryStatus;
}

/**
 * Limiter priorities. The scheduler has already chosen what matters most; the limiter's queue must not undo
 * that. Discovery and urgent fetches overtake routine ones (a routine near-jump fetch must never starve
 * discovery, which is how every race's status change is seen).
 */
const PRIORITY = { discovery: 1000, urgent: 900 } as const;
const routinePriority = (weight: number) => Math.min(800, Math.round(weight * 10));
const IDLE_RECHECK_MS = 1_000;
/** Requests counted by slice over this window (race clock), as `spent()` reports them. */
const SPENT_WINDOW_MS = 60_000;
/** At most this many recent requests are kept for `spent()`: far above any budget a minute. */
const SPENT_MAX_ENTRIES = 10_000;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the poller's workers, discovery and race table are one closure's state; its steps are the named functions inside
export function createPoller(deps: PollerDeps): Poller {
  const { clock, logger } = deps;
  const strategy = deps.strategy ?? pickNext;
  const fetchedBefore = deps.handedOver?.fetchedBefore;
  const fetchedLately = deps.handedOver?.fetchedLately;
  // A new term starts from what its predecessor listed: a term that listed every day first spent 3-4
  // requests on it before any race near its jump, and with hand-overs every few seconds (the nemesis after
  // a wipe) 18 of a wipe's first 38 requests were listings (issue 27). No document carries over.
  let races = new Map<string, RaceWatch>(
    [...(deps.handedOver?.races.values() ?? [])].map((race) => [
      race.raceId,
      {
        ...race,
        lastFetchAt: undefined,
        lastGoodAt: fetchedBefore?.get(race.raceId),
        handedOverAt: fetchedLately?.get(race.raceId),
        dirty: false,
        failures: 0,
      },
    ]),
  );
  const inFlight = new Set<string>();
  let discoveryInFlight = false;
  /** Race picks so far: every REFILL_EVERY-th is a refill turn (scheduler.ts). */
  let racePicks = 0;
  let windows = windowsFromListed(deps.handedOver?.days ?? [], clock.now());
  /** Recent requests' start and slice, oldest first (bounded: SPENT_MAX_ENTRIES). */
  const recent: { at: number; slice: Slice | 'discovery' }[] = [];
  const record = (slice: Slice | 'discovery') => {
    const now = clock.now();
    while (recent.length && (recent[0]!.at <= now - SPENT_WINDOW_MS || recent.length >= SPENT_MAX_ENTRIES))
      recent.shift();
    recent.push({ at: now, slice });
  };
  let discoveredAt = windows.size > 0 ? deps.handedOver?.discoveredAt : undefined;
  const cadences = { liveIntervalMs: deps.discoveryIntervalMs, aheadIntervalMs: AHEAD_INTERVAL_MS };
  let running = false;
  // Aborted by stop(): requests still queued or waiting for the budget are dropped, not sent.
  let stopping = new AbortController();
  let wake = new AbortController();
  const workers: Promise<void>[] = [];

  const nudge = () => {
    const old = wake;
    wake = new AbortController();
    old.abort(WOKEN);
  };

  const update = (raceId: string, patch: Partial<RaceWatch>) => {
    const race = races.get(raceId);
    if (race) races.set(raceId, { ...race, ...patch });
  };

  /** Moves the day windows on to `now`; races of a day that rolled out go once nothing is left to fetch. */
  function rollWindows(now: number): void {
    const next = currentWindows(windows, now);
    for (const [date, gone] of windows) {
      if (next.has(date)) continue;
      for (const id of gone.raceIds) {
        const race = races.get(id);
        if (race && !inFlight.has(id) && !pollPolicy(race, now, 0)) races.delete(id);
      }
    }
    windows = next;
  }

  /**
   * When discovery is next due, and how long it may wait: a day listed before may wait one live interval more
   * for the races near their jump with no document (scheduler.ts, `discoveryLatestAt`).
   */
  const discoveryDue = (now: number) => {
    let dueAt = Number.POSITIVE_INFINITY;
    let latestAt = Number.POSITIVE_INFINITY;
    for (const w of windows.values()) {
      const due = windowDueAt(w, races, now, cadences);
      dueAt = Math.min(dueAt, due);
      latestAt = Math.min(
        latestAt,
        w.refreshedAt === undefined || w.failures > 0 ? due : due + cadences.liveIntervalMs,
      );
    }
    return { dueAt, latestAt };
  };

  const setWindow = (date: string, patch: Partial<DayWindow>) => {
    const window = windows.get(date);
    if (window) windows.set(date, { ...window, ...patch });
  };

  /** A day whose every page was read: its meetings wait to be handed to `onMeetings`. */
  interface Listed {
    date: string;
    startedAt: number;
    raceIds: Set<string>;
    meetings: Meeting[];
    alarm?: DiscoveryAlarm;
  }

  /** Marks a day's refresh failed: retried after a back-off, keeping what earlier refreshes showed. */
  const failDay = (date: string, err: unknown) => {
    const failures = (windows.get(date)?.failures ?? 0) + 1;
    const { code, message } = describe(err);
    setWindow(date, {
      failures,
      failedAt: clock.now(),
      error: { code: code ?? 'DISCOVERY_FAILED', message },
    });
    logger.warn({ date, err: describe(err), failures }, 'discovery failed');
  };

  /**
   * Reads every page of one day and tells the scheduler of its races at once (the workers are woken);
   * undefined when a page failed, the day then marked failed.
   */
  async function listDay(date: string): Promise<Listed | undefined> {
    // The next refresh is timed from this one's start: timed from its end, the wait for a worker and a limiter
    // slot and the request itself were added to every interval (6 s ran as ~7.9 s, measured: issue 26).
    const listed: Listed = { date, startedAt: clock.now(), raceIds: new Set(), meetings: [] };
    const onAlarm = (raised: DiscoveryAlarm) => {
      listed.alarm = raised;
      logger.warn({ date, code: raised.code }, raised.message);
      deps.onDiscoveryAlarm?.(raised);
    };
    const fetchPage = async (query: MeetingsPageQuery) => {
      record('discovery');
      const page = await deps.source.meetings(query, {
        priority: PRIORITY.discovery,
        signal: stopping.signal,
      });
      for (const row of page.droppedRows ?? []) {
        logger.warn({ date, code: row.code, path: row.path, reason: row.reason }, 'row dropped');
      }
      if (page.droppedRows) deps.onDroppedRows?.(page.droppedRows);
      return page;
    };
    try {
      for await (const meetings of meetingPages(
        fetchPage,
        date,
        deps.discoveryPageSize ?? DEFAULT_PAGE_SIZE,
        onAlarm,
      )) {
        const result = applyMeetings(races, meetings, clock.now());
        races = result.races;
        for (const id of result.added) {
          const at = fetchedBefore?.get(id);
          if (at !== undefined) update(id, { lastGoodAt: at });
          const fetched = fetchedLately?.get(id);
          if (fetched !== undefined) update(id, { handedOverAt: fetched });
        }
        for (const meeting of meetings) for (const race of meeting.races) listed.raceIds.add(race.id);
        listed.meetings.push(...meetings);
        if (result.added.length || result.changed.length) {
          logger.debug({ date, added: result.added.length, changed: result.changed.length }, 'discovery');
          nudge();
        }
      }
      return listed;
    } catch (err) {
      if (!stopping.signal.aborted) failDay(date, err);
      return undefined;
    }
  }

  /** Hands a listed day's meetings on; the day counts as refreshed once they are taken in. */
  async function settleDay(listed: Listed): Promise<void> {
    const { date, alarm } = listed;
    try {
      if (listed.meetings.length) await deps.onMeetings?.(listed.meetings);
      discoveredAt = clock.now();
      const window = { date, raceIds: [...listed.raceIds], failures: 0 };
      const listedSettled = dayCadence({ ...window, listedSettled: true }, races, discoveredAt) === 'settled';
      setWindow(date, {
        ...window,
        refreshedAt: listed.startedAt,
        listedSettled,
        failedAt: undefined,
        error: undefined,
        alarm: alarm && { code: alarm.code, message: alarm.message },
      });
    } catch (err) {
      if (!stopping.signal.aborted) failDay(date, err);
    }
  }

  /**
   * Refreshes every day window that is due: all of them listed first, then their meetings handed on. Handed
   * on page by page, a new leader's meeting pipeline (its first sight of a day reads every meeting's head from
   * the log: ~14 s a day at load 20) held the next day's listing back, and with it the races at their jump,
   * tomorrow's late in the UTC day, while the budget went to yesterday's Final races (issue 27's nemesis).
   */
  async function discover(): Promise<void> {
    const listed: Listed[] = [];
    for (const window of [...windows.values()]) {
      if (stopping.signal.aborted) return;
      if (windowDueAt(window, races, clock.now(), cadences) > clock.now()) continue;
      const day = await listDay(window.date);
      if (day) listed.push(day);
    }
    for (const day of listed) {
      if (stopping.signal.aborted) return;
      await settleDay(day);
    }
  }

  async function fetchRace(raceId: string, priority: number): Promise<void> {
    try {
      const watched = races.get(raceId);
      const options = watched && deps.eventOptions ? deps.eventOptions(watched, clock.now()) : {};
      const request = { ...options, priority, signal: stopping.signal };
      const outcome = deps.unchangedSkip
        ? await deps.unchangedSkip.fetch(raceId, request, deps.onEvent)
        : await deps.onEvent(raceId, await deps.source.event(raceId, request));
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
        pending: outcome.pending === true,
        ...(status ? { status } : {}),
        dividends: outcome.dividends ?? 'none',
        finishedAt: race?.finishedAt ?? (status && FINISHED_STATUSES.has(status) ? now : undefined),
        interimAt: race?.interimAt ?? (status === 'Interim' ? now : undefined),
      });
    } catch (err) {
      if (stopping.signal.aborted) return;
      update(raceId, { lastFetchAt: clock.now(), failures: (races.get(raceId)?.failures ?? 0) + 1 });
      logger.warn({ raceId, err: describe(err) }, 'race fetch failed');
    }
  }

  /**
   * One worker at a time holds the seat: it waits for the budget to allow a start, picks, starts the request
   * and gives the seat up (requests start synchronously, so the next holder sees this one queued). A pick
   * made before its slot waited in the limiter's queue behind the other workers' requests, on ages and
   * statuses that moved on meanwhile: a race a listing had just shown Interim waited ~3.6 s there (issue 26).
   */
  let seat: Promise<void> = Promise.resolve();
  const takeSeat = async (): Promise<() => void> => {
    const held = seat;
    let release!: () => void;
    seat = new Promise((resolve) => {
      release = resolve;
    });
    await held;
    return release;
  };

  /** Picks and starts one unit of work; answers its completion. */
  function step(): Promise<void> {
    const now = clock.now();
    rollWindows(now);
    const discovery = discoveryDue(now);
    const pick = strategy({
      races: races.values(),
      now,
      inFlight,
      subscribers: deps.subscribers(),
      discoveryDueAt: discovery.dueAt,
      discoveryLatestAt: discovery.latestAt,
      discoveryInFlight,
      racePicks,
    });
    if (pick.kind === 'discovery') {
      discoveryInFlight = true;
      return discover().finally(() => {
        discoveryInFlight = false;
        nudge();
      });
    }
    if (pick.kind === 'race') {
      if (usesTurn(pick, racePicks)) racePicks++;
      const picked = races.get(pick.raceId);
      if (picked) record(sliceOf(picked, now));
      inFlight.add(pick.raceId);
      return fetchRace(pick.raceId, pick.urgent ? PRIORITY.urgent : routinePriority(pick.weight)).finally(
        () => inFlight.delete(pick.raceId),
      );
    }
    // Re-check at least every second: a new subscription makes a race overdue without telling the poller.
    const wait = Math.min(IDLE_RECHECK_MS, Math.max(1, pick.until - clock.now()));
    return clock.sleep(wait, wake.signal).catch(() => {});
  }

  async function work(): Promise<void> {
    while (running) {
      const release = await takeSeat();
      let done: Promise<void>;
      try {
        // A limiter that refuses (closed) refuses the request too, which fetchRace and discover handle.
        await deps.source.whenReady?.(stopping.signal).catch(() => {});
        if (!running) return;
        done = step();
      } finally {
        release();
      }
      await done;
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
    spent() {
      const counts = Object.fromEntries(['discovery', ...SLICES].map((k) => [k, 0])) as SliceCounts;
      const since = clock.now() - SPENT_WINDOW_MS;
      for (const r of recent) if (r.at > since) counts[r.slice]++;
      return counts;
    },
    staleness(raceId) {
      const at = races.get(raceId)?.lastGoodAt;
      return at === undefined ? undefined : clock.now() - at;
    },
    lastDiscoveryAt: () => discoveredAt,
    listedDays: () =>
      [...windows.values()].flatMap((w) =>
        w.refreshedAt === undefined || w.failures > 0
          ? []
          : [
              {
                date: w.date,
                refreshedAt: w.refreshedAt,
                raceIds: w.raceIds,
                listedSettled: w.listedSettled === true,
              },
            ],
      ),
    discovery: () => discoveryStatus(windows.values()),
  };
}

function describe(err: unknown): { name?: string; code?: string; message: string } {
  if (err instanceof Error)
    return { name: err.name, code: (err as { code?: string }).code, message: err.message };
  return { message: String(err) };
}
