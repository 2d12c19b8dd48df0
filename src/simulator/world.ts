/**
 * The simulated world: the precomputed day plus changes scripted by tests or the control API.
 * A race's state at t is a pure function of (seed, race, t, scripted changes up to t).
 */
import type { Clock } from '../clock.js';
import { byTime, change, placeOf } from './changes.js';
import type { MeetingStatic, RaceState, RaceStatic, SimChange, TimedChange } from './model.js';
import { dividendRows, drawPlacings, resultRows } from './outcome.js';
import { buildWorld } from './schedule.js';
import { appliedCount, foldState } from './state.js';

export class SimWorldError extends Error {
  constructor(
    readonly code: 'unknown_race' | 'unknown_entrant' | 'invalid_change',
    message: string,
  ) {
    super(message);
    this.name = 'SimWorldError';
  }
}

/** Lifecycle changes a scripted status/result/abandon supersedes. */
const LIFECYCLE = new Set(['status', 'results', 'dividends', 'protest']);

export interface RaceView {
  id: string;
  meetingId: string;
  raceNumber: number;
  name: string;
  status: string;
  startTime: string;
  runners: { entrantId: string; runnerNumber: number; name: string; scratched: boolean; fixedWin: number }[];
}

export class SimWorld {
  readonly meetings: MeetingStatic[];
  readonly races: RaceStatic[];
  private readonly byId: Map<string, RaceStatic>;
  private readonly meetingById: Map<string, MeetingStatic>;
  private readonly changes: Map<string, TimedChange[]>;
  /** Bumped when a race's change list is edited, so cached payloads are dropped. */
  private readonly versions = new Map<string, number>();
  private seq = 1e9;
  private stateCache = new Map<string, { version: number; count: number; state: RaceState }>();

  constructor(
    readonly seed: number,
    readonly day: number,
    private readonly clock: Clock,
  ) {
    const built = buildWorld(seed, day);
    this.meetings = built.meetings;
    this.races = built.races;
    this.changes = built.changes;
    this.byId = new Map(this.races.map((r) => [r.id, r]));
    this.meetingById = new Map(this.meetings.map((m) => [m.id, m]));
  }

  race(id: string): RaceStatic | undefined {
    return this.byId.get(id);
  }
  meeting(id: string): MeetingStatic | undefined {
    return this.meetingById.get(id);
  }
  version(raceId: string): number {
    return this.versions.get(raceId) ?? 0;
  }

  /** State of a race at `t` (default now), plus how many changes it reflects (a cache key). */
  stateAt(raceId: string, t = this.clock.now()): { state: RaceState; count: number } {
    const race = this.require(raceId);
    const list = this.changes.get(raceId) as TimedChange[];
    const count = appliedCount(list, t);
    const version = this.version(raceId);
    const cached = this.stateCache.get(raceId);
    if (cached && cached.version === version && cached.count === count) return cached;
    const entry = { version, count, state: foldState(race, list, count) };
    this.stateCache.set(raceId, entry);
    return entry;
  }

  /** Every change with `at <= now`, in time order. */
  journal(now = this.clock.now()): SimChange[] {
    const out: TimedChange[] = [];
    for (const list of this.changes.values()) {
      for (const c of list) {
        if (c.at > now) break;
        out.push(c);
      }
    }
    return out
      .sort(byTime)
      .map(({ at, raceId, meetingId, type, detail }) => ({ at, raceId, meetingId, type, detail }));
  }

  /** Meetings and races with their state now: for tests and GET /__sim/state. */
  view(): {
    now: string;
    meetings: { id: string; name: string; category: string; country: string; races: RaceView[] }[];
  } {
    const now = this.clock.now();
    return {
      now: new Date(now).toISOString(),
      meetings: this.meetings.map((m) => ({
        id: m.id,
        name: m.name,
        category: m.category,
        country: m.country,
        races: m.races.map((r) => this.raceView(r.id, now)),
      })),
    };
  }

  raceView(raceId: string, now = this.clock.now()): RaceView {
    const race = this.require(raceId);
    const { state } = this.stateAt(raceId, now);
    return {
      id: race.id,
      meetingId: race.meeting.id,
      raceNumber: race.raceNumber,
      name: race.name,
      status: state.status,
      startTime: new Date(state.startTime).toISOString(),
      runners: race.runners.map((r) => {
        const s = state.runners.get(r.entrantId);
        return {
          entrantId: r.entrantId,
          runnerNumber: r.number,
          name: r.name,
          scratched: s?.scratchedAt != null,
          fixedWin: s?.fixedWin ?? r.openWin,
        };
      }),
    };
  }

  // ---- scripted changes, all at the current instant -------------------------------------------

  scratch(raceId: string, entrantId: string, opts: { late?: boolean } = {}): SimChange {
    const race = this.require(raceId);
    const runner = this.runner(race, entrantId);
    // Later precomputed moves and scratchings of this runner no longer happen.
    this.dropFuture(
      raceId,
      (c) => c.detail.entrantId === entrantId && (c.type === 'odds' || c.type === 'scratching'),
    );
    return this.script(race, 'scratching', {
      entrantId,
      runnerNumber: runner.number,
      late: opts.late ?? false,
    });
  }

  reinstate(raceId: string, entrantId: string): SimChange {
    const race = this.require(raceId);
    const runner = this.runner(race, entrantId);
    return this.script(race, 'reinstatement', { entrantId, runnerNumber: runner.number });
  }

  moveOdds(raceId: string, entrantId: string, fixedWin: number): SimChange {
    const race = this.require(raceId);
    const runner = this.runner(race, entrantId);
    if (!(fixedWin > 1) || !Number.isFinite(fixedWin))
      throw new SimWorldError('invalid_change', 'fixedWin must be > 1');
    const place = placeOf(fixedWin);
    return this.script(race, 'odds', {
      entrantId,
      runnerNumber: runner.number,
      fixedWin,
      fixedPlace: place,
      poolWin: fixedWin,
      poolPlace: place,
    });
  }

  setStatus(raceId: string, status: string): SimChange {
    const race = this.require(raceId);
    if (!status) throw new SimWorldError('invalid_change', 'status must be a non-empty string');
    const from = this.stateAt(raceId).state.status;
    this.dropFuture(raceId, (c) => LIFECYCLE.has(c.type));
    return this.script(race, 'status', { from, to: status });
  }

  abandon(raceId: string): SimChange {
    this.require(raceId);
    this.dropFuture(raceId, () => true);
    return this.setStatus(raceId, 'Abandoned');
  }

  delayStart(raceId: string, minutes: number): SimChange {
    const race = this.require(raceId);
    if (!Number.isFinite(minutes) || minutes === 0)
      throw new SimWorldError('invalid_change', 'minutes must be non-zero');
    const now = this.clock.now();
    const from = this.stateAt(raceId, now).state.startTime;
    const to = from + minutes * 60_000;
    // The jump and what follows move with the start.
    const list = this.changes.get(raceId) as TimedChange[];
    for (const c of list) if (c.at > now && LIFECYCLE.has(c.type)) c.at += minutes * 60_000;
    list.sort(byTime);
    return this.script(race, 'start_time', {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      minutes,
    });
  }

  /**
   * Results now (placings given, or drawn from the prices), with Interim dividends beside them.
   * Later precomputed results, protests and dividends are dropped.
   */
  setResults(raceId: string, placings?: string[]): SimChange {
    const race = this.require(raceId);
    const { state } = this.stateAt(raceId);
    const order = placings ?? drawPlacings(this.seed, race, state.runners, `scripted-${this.clock.now()}`);
    for (const id of order) this.runner(race, id);
    if (order.length === 0 || new Set(order).size !== order.length) {
      throw new SimWorldError('invalid_change', 'placings must be distinct entrant ids');
    }
    this.dropFuture(raceId, (c) => c.type === 'results' || c.type === 'protest' || c.type === 'dividends');
    const results = resultRows(this.seed, race, order);
    const change = this.script(race, 'results', { placings: order }, { results });
    this.script(
      race,
      'dividends',
      { status: 'Interim' },
      {
        dividends: dividendRows(this.seed, race, order, state.runners, 'Interim'),
      },
    );
    return change;
  }

  private script(
    race: RaceStatic,
    type: TimedChange['type'],
    detail: Record<string, unknown>,
    extra: Partial<TimedChange> = {},
  ): SimChange {
    const c = change(race, this.clock.now(), this.seq++, type, detail, { scripted: true, ...extra });
    const list = this.changes.get(race.id) as TimedChange[];
    list.splice(appliedCount(list, c.at), 0, c);
    this.versions.set(race.id, this.version(race.id) + 1);
    return { at: c.at, raceId: c.raceId, meetingId: c.meetingId, type: c.type, detail: c.detail };
  }

  private dropFuture(raceId: string, match: (c: TimedChange) => boolean): void {
    const now = this.clock.now();
    const list = this.changes.get(raceId) as TimedChange[];
    const kept = list.filter((c) => c.at <= now || c.scripted || !match(c));
    this.changes.set(raceId, kept);
    this.versions.set(raceId, this.version(raceId) + 1);
  }

  private require(raceId: string): RaceStatic {
    const race = this.byId.get(raceId);
    if (!race) throw new SimWorldError('unknown_race', `no race with id ${raceId}`);
    return race;
  }

  private runner(race: RaceStatic, entrantId: string) {
    const runner = race.runners.find((r) => r.entrantId === entrantId);
    if (!runner) throw new SimWorldError('unknown_entrant', `race ${race.id} has no entrant ${entrantId}`);
    return runner;
  }
}
