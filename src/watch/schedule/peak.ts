/**
 * The near-jump load ahead (issue 26): how many races will be near their jump at an instant, read from the
 * timetable (the advertised starts discovery lists), so the budget's deadline slices can spend their requests
 * in the troughs and leave the peaks to the races at their jump. Pure.
 *
 * A race Open (not Closed, Interim or over) counts as near its jump from NEAR_JUMP_MS before its advertised
 * start until ASSUMED_JUMP_DELAY_MS after it, or after `now` if it is later than that already (it is still
 * near its jump now, and goes soon). A peak is PEAK_RACES or more at once. In the freshness bench's busiest
 * stretch (seeds 7-9) 3-15 races are near their jump, median 9, with stretches of 10-16 minutes at 10-13
 * (docs/benchmarks.md, issue 26): there the near-jump slice's ~64 requests a minute came to a fetch every
 * 10-11 s a race, and those moves made the odds' 95th percentile.
 */
import { FINISHED_STATUSES, type RaceWatch, RUN_STATUSES } from '../track/race-watch.js';

/** A race within this of its advertised start (or past it and not jumped) is near its jump (the scheduler's, the budget plan's and the forecast's one rule). */
export const NEAR_JUMP_MS = 10 * 60_000;
/** When a race not yet jumped is assumed to jump: this long after its advertised start (the median delay is 66 s). */
export const ASSUMED_JUMP_DELAY_MS = 60_000;
/** At least this many races near their jump at once is a peak. */
export const PEAK_RACES = 10;
/** At most this many races near their jump is a trough: the deadline slices may work ahead in it. */
export const TROUGH_RACES = 7;
/**
 * In a peak a race 1-3 h out is fetched only this long past its maximum age (`earlyScratchingMaxAgeMs`, 18
 * minutes: the goal is 20), and a race more than 3 h out not at all (scheduler.ts, budget-plan.ts).
 */
export const BAND_PEAK_GRACE_MS = 60_000;
/** How far ahead the forecast looks for the next peak. */
export const FORECAST_MS = 20 * 60_000;

/**
 * Collects the races' near-jump spans at `now` (`add`, each race once, in any order) and answers when the
 * next peak begins (`nextPeakAt`).
 */
export class PeakForecast {
  private readonly spans: { from: number; to: number }[] = [];
  constructor(private readonly now: number) {}

  add(race: RaceWatch): void {
    if (FINISHED_STATUSES.has(race.status) || RUN_STATUSES.has(race.status)) return;
    const from = race.startTime - NEAR_JUMP_MS;
    if (from > this.now + FORECAST_MS) return;
    const to = Math.max(race.startTime, this.now) + ASSUMED_JUMP_DELAY_MS;
    this.spans.push({ from: Math.max(from, this.now), to });
  }

  /** How many races are near their jump at `now`. */
  loadNow(): number {
    let load = 0;
    for (const s of this.spans) if (s.from <= this.now && this.now < s.to) load++;
    return load;
  }

  /**
   * The first instant at or after `now`, within FORECAST_MS, at which PEAK_RACES or more races are near their
   * jump (`now` itself while a peak is on), or Infinity when none comes within it.
   */
  nextPeakAt(): number {
    const { spans } = this;
    if (spans.length < PEAK_RACES) return Number.POSITIVE_INFINITY;
    // The load only rises where a span begins: check those instants in order.
    const begins = [...new Set(spans.map((s) => s.from))].sort((a, b) => a - b);
    for (const t of begins) {
      let load = 0;
      for (const s of spans) if (s.from <= t && t < s.to) load++;
      if (load >= PEAK_RACES) return t;
    }
    return Number.POSITIVE_INFINITY;
  }
}

/** `PeakForecast.nextPeakAt` over `races` at `now`. */
export function nextPeakAt(races: Iterable<RaceWatch>, now: number): number {
  const forecast = new PeakForecast(now);
  for (const race of races) forecast.add(race);
  return forecast.nextPeakAt();
}
