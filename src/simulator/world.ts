/**
 * The simulated world: the real timetable laid onto every day from the day before the configured one,
 * each race's precomputed story, and changes scripted by tests or the control API. A race's state at t is
 * a pure function of (seed, race, t, scripted changes up to t).
 *
 * Built lazily: a day's skeleton when it is first asked for (the configured day and its neighbours at
 * once), a race's lifecycle when it is listed, its field and full story when it is first used.
 */
import type { Clock } from '../clock.js';
import { betsOf, type SimBet } from './bets.js';
import { buildDay, LISTING_LEAD } from './calendar.js';
import { byTime, DAY, dayOf } from './changes.js';
import { type Lifecycle, lifecycleChanges, lifecycleOf } from './lifecycle.js';
import type { MeetingStatic, RaceState, RaceStatic, SimChange, TimedChange } from './model.js';
import type { RaceSummaryState } from './payloads.js';
import { appliedCount, foldState } from './state.js';
import { storyOf } from './story.js';
import { SimWorldError, WorldScript } from './world-script.js';

export { SimWorldError } from './world-script.js';

export interface RaceView {
  id: string;
  meetingId: string;
  raceNumber: number;
  name: string;
  status: string;
  startTime: string;
  runners: { entrantId: string; runnerNumber: number; name: string; scratched: boolean; fixedWin: number }[];
}

/** Days a world can build ahead of now: a meeting is listed up to LISTING_LEAD before a first race that
 * starts as early as 14:15 UTC the day before its date. */
const DAYS_AHEAD = Math.ceil((LISTING_LEAD + DAY) / DAY) + 1;
/** Built days kept before days before yesterday are dropped whole: the configured day's neighbours and the days ahead. */
const MAX_DAYS = 7;
/** Races whose bets stay drawn: every race of the listed days held 19.5 MB of the demo's heap (issue 23). */
const BET_CACHE_RACES = 256;

export class SimWorld extends WorldScript {
  /** The first day that exists: the day before the configured one, later once old days are forgotten. */
  private firstDay: number;
  private readonly days = new Map<number, MeetingStatic[]>();
  private readonly raceById = new Map<string, RaceStatic>();
  private readonly meetingById = new Map<string, MeetingStatic>();
  private readonly lifecycles = new Map<string, { life: Lifecycle; list: TimedChange[] }>();
  private ordered: { meetings: MeetingStatic[]; races: RaceStatic[] } | undefined;
  private stateCache = new Map<string, { version: number; count: number; state: RaceState }>();
  private betCache = new Map<string, readonly SimBet[]>();

  constructor(
    readonly seed: number,
    /** Midnight UTC of the configured day. */
    readonly day: number,
    clock: Clock,
  ) {
    super(clock);
    this.firstDay = day - DAY;
    for (const d of [day - DAY, day, day + DAY]) this.buildDay(d);
  }

  /** Every meeting of the days built so far, by day and then first start. */
  get meetings(): MeetingStatic[] {
    return this.order().meetings;
  }
  get races(): RaceStatic[] {
    return this.order().races;
  }

  /** The range of meeting dates that can exist at `now`: from the first day to a few days ahead. */
  availableDays(now = this.clock.now()): { from: number; to: number } {
    return { from: this.firstDay, to: Math.max(this.firstDay, dayOf(now) + DAYS_AHEAD * DAY) };
  }

  /** The meetings dated within [from, to] (midnights, clamped to the available days), built if needed. */
  meetingsDated(from: number, to: number, now = this.clock.now()): MeetingStatic[] {
    const days = (range: { from: number; to: number }) => {
      const list: number[] = [];
      for (let d = Math.max(dayOf(from), range.from); d <= Math.min(dayOf(to), range.to); d += DAY)
        list.push(d);
      return list;
    };
    for (const d of days(this.availableDays(now))) this.buildDay(d);
    // Building may have forgotten old days: collect what is left.
    return days(this.availableDays(now)).flatMap((d) => this.days.get(d) ?? []);
  }

  /** Whether a meeting is published at `now`: /meetings lists it and its ids resolve. */
  listed(meeting: MeetingStatic, now = this.clock.now()): boolean {
    return now >= meeting.listedAt;
  }

  race(id: string): RaceStatic | undefined {
    return this.raceById.get(id);
  }
  meeting(id: string): MeetingStatic | undefined {
    return this.meetingById.get(id);
  }

  /**
   * Every bet the race will see (with its time); payloads show those placed by now. Drawn from the
   * precomputed story only, so a scripted change never rewrites bets already placed (a bet on a runner
   * scratched before it is dropped when payloads are built).
   */
  bets(raceId: string): readonly SimBet[] {
    const race = this.require(raceId);
    let bets = this.betCache.get(raceId);
    if (bets) this.betCache.delete(raceId);
    else bets = betsOf(this.seed, race, this.lifecycleEntry(race).life, this.buildStory(race));
    // Most recently asked last; the bets are a function of the seed and the race, so a race dropped here
    // gets the same ones back when asked again.
    this.betCache.set(raceId, bets);
    if (this.betCache.size > BET_CACHE_RACES)
      this.betCache.delete(this.betCache.keys().next().value as string);
    return bets;
  }

  lifecycle(raceId: string): Lifecycle {
    return this.lifecycleEntry(this.require(raceId)).life;
  }

  /** State of a race at `t` (default now), plus how many changes it reflects (a cache key). */
  stateAt(raceId: string, t = this.clock.now()): { state: RaceState; count: number } {
    const race = this.require(raceId);
    const list = this.changesOf(race);
    const count = appliedCount(list, t);
    const version = this.version(raceId);
    const cached = this.stateCache.get(raceId);
    if (cached && cached.version === version && cached.count === count) return cached;
    const entry = { version, count, state: foldState(race, list, count) };
    this.stateCache.set(raceId, entry);
    return entry;
  }

  /**
   * Status, start time, track condition and protest at `t`: from the full story once the race has one (or
   * its protest is decided), else from its lifecycle alone (the same changes), so listing meetings builds
   * no runners.
   */
  summaryAt(raceId: string, t = this.clock.now()): RaceSummaryState {
    const race = this.require(raceId);
    const { life, list } = this.lifecycleEntry(race);
    if (this.hasStory(raceId) || (life.protest && t >= life.finalAt)) return this.stateAt(raceId, t).state;
    return foldState(race, list, appliedCount(list, t), false);
  }

  /** Every change with `at <= now`, in time order. */
  journal(now = this.clock.now()): SimChange[] {
    const out: TimedChange[] = [];
    for (const race of this.races) {
      if (race.marketOpen > now && !this.hasStory(race.id)) continue;
      for (const c of this.changesOf(race)) {
        if (c.at > now) break;
        out.push(c);
      }
    }
    return out
      .sort(byTime)
      .map(({ at, raceId, meetingId, type, detail }) => ({ at, raceId, meetingId, type, detail }));
  }

  /** Listed meetings and their races with their state now: for tests and GET /__sim/state. */
  view(): {
    now: string;
    meetings: { id: string; name: string; category: string; country: string; races: RaceView[] }[];
  } {
    const now = this.clock.now();
    return {
      now: new Date(now).toISOString(),
      meetings: this.meetings
        .filter((m) => this.listed(m, now))
        .map((m) => ({
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

  // ---- building ---------------------------------------------------------------------------------

  protected require(raceId: string): RaceStatic {
    const race = this.raceById.get(raceId);
    if (!race) throw new SimWorldError('unknown_race', `no race with id ${raceId}`);
    return race;
  }

  protected buildStory(race: RaceStatic): TimedChange[] {
    const { life, list } = this.lifecycleEntry(race);
    let seq = list.length;
    return storyOf(this.seed, race, life, list, () => seq++);
  }

  private lifecycleEntry(race: RaceStatic): { life: Lifecycle; list: TimedChange[] } {
    let entry = this.lifecycles.get(race.id);
    if (!entry) {
      const life = lifecycleOf(this.seed, race);
      let seq = 0;
      entry = { life, list: lifecycleChanges(race, life, () => seq++).sort(byTime) };
      this.lifecycles.set(race.id, entry);
    }
    return entry;
  }

  private buildDay(day: number): MeetingStatic[] {
    let meetings = this.days.get(day);
    if (!meetings) {
      meetings = buildDay(this.seed, day);
      this.days.set(day, meetings);
      for (const m of meetings) {
        this.meetingById.set(m.id, m);
        for (const r of m.races) this.raceById.set(r.id, r);
      }
      this.ordered = undefined;
      this.forgetOldDays();
    }
    return meetings;
  }

  /**
   * Keeps memory bounded on a long run (a demo at x10 passes ten days a day), whenever a new day is built:
   * the days before yesterday keep only their skeleton, their races' fields, lifecycles, stories, states and
   * bets dropped (built again, the same, from the seed if asked for again; a scripted change to one is lost);
   * beyond MAX_DAYS built days they are dropped whole (their ids then answer 404). Skeletons only: a day whose
   * races were asked held all of that until seven days were built, about 17 MB of the soak's heap a race day
   * (issue 23).
   */
  private forgetOldDays(): void {
    const keepFrom = dayOf(this.clock.now()) - DAY;
    for (const day of [...this.days.keys()].sort((a, b) => a - b)) {
      if (day >= keepFrom) return;
      const whole = this.days.size > MAX_DAYS;
      for (const m of this.days.get(day) ?? []) {
        if (whole) this.meetingById.delete(m.id);
        for (const r of m.races) {
          if (whole) this.raceById.delete(r.id);
          r.releaseRunners();
          this.lifecycles.delete(r.id);
          this.stateCache.delete(r.id);
          this.betCache.delete(r.id);
          this.forget(r.id);
        }
      }
      if (whole) {
        this.days.delete(day);
        this.firstDay = Math.max(this.firstDay, day + DAY);
      }
    }
  }

  /** Whether the world holds anything built for a race beyond its skeleton (a lifecycle, story or state). */
  holds(raceId: string): boolean {
    return this.lifecycles.has(raceId) || this.stateCache.has(raceId) || this.hasStory(raceId);
  }

  private order() {
    if (!this.ordered) {
      const meetings = [...this.days.keys()].sort((a, b) => a - b).flatMap((d) => this.days.get(d) ?? []);
      this.ordered = { meetings, races: meetings.flatMap((m) => m.races) };
    }
    return this.ordered;
  }
}
