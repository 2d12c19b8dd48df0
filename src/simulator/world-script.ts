/**
 * Changes scripted by tests and the control API, all at the current instant: they are journalled and
 * supersede the precomputed ones they contradict (a scripted status drops later precomputed status,
 * results, dividends and protest; a scratching drops the runner's later moves; a delay moves the jump
 * and what follows). The base of SimWorld, which owns the races and their stories.
 */
import type { Clock } from '../clock.js';
import { change, placeOf, placesPaidIn } from './changes.js';
import { deductionOf } from './market.js';
import type { RaceState, RaceStatic, RunnerStatic, SimChange, TimedChange } from './model.js';
import { dividendRows, drawPlacings, resultRows } from './outcome.js';
import { appliedCount } from './state.js';
import { poolPrices, poolsOf, poolTotal, toteTick } from './tote.js';

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

export abstract class WorldScript {
  abstract readonly seed: number;
  private readonly stories = new Map<string, TimedChange[]>();
  /** Bumped when a race's change list is edited, so cached states and payloads are dropped. */
  private readonly versions = new Map<string, number>();
  private seq = 1e9;

  constructor(protected readonly clock: Clock) {}

  protected abstract require(raceId: string): RaceStatic;
  protected abstract buildStory(race: RaceStatic): TimedChange[];
  abstract stateAt(raceId: string, t?: number): { state: RaceState; count: number };

  version(raceId: string): number {
    return this.versions.get(raceId) ?? 0;
  }

  protected hasStory(raceId: string): boolean {
    return this.stories.has(raceId);
  }

  /** Drops a race's story and version (its day is forgotten). */
  protected forget(raceId: string): void {
    this.stories.delete(raceId);
    this.versions.delete(raceId);
  }

  /** The race's full change list, sorted by (at, seq), built on first use. */
  protected changesOf(race: RaceStatic): TimedChange[] {
    let list = this.stories.get(race.id);
    if (!list) {
      list = this.buildStory(race);
      this.stories.set(race.id, list);
    }
    return list;
  }

  scratch(raceId: string, entrantId: string, opts: { late?: boolean } = {}): SimChange {
    const race = this.require(raceId);
    const runner = this.runner(race, entrantId);
    const late = opts.late ?? false;
    const { runners } = this.stateAt(raceId).state;
    const win = runners.get(entrantId)?.fixedWin ?? runner.openWin;
    // Later precomputed moves and scratchings of this runner no longer happen.
    this.dropFuture(
      race,
      (c) => c.detail.entrantId === entrantId && (c.type === 'odds' || c.type === 'scratching'),
    );
    return this.script(race, 'scratching', {
      entrantId,
      runnerNumber: runner.number,
      late,
      ...deductionOf(late, win, placesPaidIn(race, runners)),
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
    return this.script(race, 'odds', {
      entrantId,
      runnerNumber: runner.number,
      fixedWin,
      fixedPlace: placeOf(fixedWin, placesPaidIn(race, this.stateAt(raceId).state.runners)),
    });
  }

  setStatus(raceId: string, status: string): SimChange {
    const race = this.require(raceId);
    if (!status) throw new SimWorldError('invalid_change', 'status must be a non-empty string');
    const from = this.stateAt(raceId).state.status;
    this.dropFuture(race, (c) => LIFECYCLE.has(c.type));
    return this.script(race, 'status', { from, to: status });
  }

  abandon(raceId: string): SimChange {
    const race = this.require(raceId);
    this.dropFuture(race, () => true);
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
    const list = this.changesOf(race);
    for (const c of list) if (c.at > now && LIFECYCLE.has(c.type)) c.at += minutes * 60_000;
    list.sort((a, b) => a.at - b.at || a.seq - b.seq);
    return this.script(race, 'start_time', {
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      minutes,
    });
  }

  /**
   * Results now (placings given, or drawn from the prices), with Interim dividends beside them at the
   * current pool prices and totals. Later precomputed results, protests and dividends are dropped.
   */
  setResults(raceId: string, placings?: string[]): SimChange {
    const race = this.require(raceId);
    const now = this.clock.now();
    const { state } = this.stateAt(raceId, now);
    const order = placings ?? drawPlacings(this.seed, race, state.runners, `scripted-${now}`);
    for (const id of order) this.runner(race, id);
    if (order.length === 0 || new Set(order).size !== order.length) {
      throw new SimWorldError('invalid_change', 'placings must be distinct entrant ids');
    }
    this.dropFuture(race, (c) => c.type === 'results' || c.type === 'protest' || c.type === 'dividends');
    const tick = toteTick(now, state.startTime, state.closedAt) ?? now;
    const prices = poolPrices(this.seed, race, state.runners, state.startTime, tick);
    const totals = Object.fromEntries(
      poolsOf(race).map((p) => [p.product, poolTotal(p, tick, state.startTime)]),
    );
    const made = this.script(
      race,
      'results',
      { placings: order },
      { results: resultRows(this.seed, race, order) },
    );
    this.script(
      race,
      'dividends',
      { status: 'Interim' },
      {
        dividends: dividendRows(
          this.seed,
          race,
          order,
          placesPaidIn(race, state.runners),
          prices,
          totals,
          'Interim',
        ),
      },
    );
    return made;
  }

  private script(
    race: RaceStatic,
    type: TimedChange['type'],
    detail: Record<string, unknown>,
    extra: Partial<TimedChange> = {},
  ): SimChange {
    const c = change(race, this.clock.now(), this.seq++, type, detail, { scripted: true, ...extra });
    const list = this.changesOf(race);
    list.splice(appliedCount(list, c.at), 0, c);
    this.versions.set(race.id, this.version(race.id) + 1);
    return { at: c.at, raceId: c.raceId, meetingId: c.meetingId, type: c.type, detail: c.detail };
  }

  private dropFuture(race: RaceStatic, match: (c: TimedChange) => boolean): void {
    const now = this.clock.now();
    const kept = this.changesOf(race).filter((c) => c.at <= now || c.scripted || !match(c));
    this.stories.set(race.id, kept);
    this.versions.set(race.id, this.version(race.id) + 1);
  }

  protected runner(race: RaceStatic, entrantId: string): RunnerStatic {
    const runner = race.runners.find((r) => r.entrantId === entrantId);
    if (!runner) throw new SimWorldError('unknown_entrant', `race ${race.id} has no entrant ${entrantId}`);
    return runner;
  }
}
