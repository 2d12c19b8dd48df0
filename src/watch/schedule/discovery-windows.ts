/**
 * Which days discovery lists, and when each is refreshed. Pure.
 *
 * Discovery asks /meetings one day at a time (`date_from = date_to = D`), for yesterday, today and tomorrow
 * (UTC dates): meetings are dated by the New Zealand racing day, whose races run from about 14:00 UTC the
 * day before to 17:00 UTC on the day (the real list of 2025-07-17 starts at 14:15 UTC on the 16th), so at
 * any UTC instant the live meetings are dated within a day of it. Each day is refreshed at the cadence its
 * races need, judged from what racewire knows of them (discovery and each race's own fetches):
 *
 * - `live`: a race not finished starts within LIVE_HORIZON_MS (or started less than STUCK_AFTER_MS ago):
 *   every `liveIntervalMs` (DISCOVERY_INTERVAL_MS). Today, most of the time; tomorrow once its first races
 *   come within the hour (from about 13:15 UTC); yesterday until its last races have finished.
 * - `ahead`: races not finished, none of them live, or no races at all yet: every `aheadIntervalMs`.
 *   Tomorrow, most of the day: new meetings and changed start times hours away are not urgent.
 * - `settled`: listed, and every race finished (Final or Abandoned) or stuck, as its last refresh found
 *   it: never again. Yesterday, once its races are over. A day whose races are known finished from their own
 *   fetches but were not yet when it was last listed stays `live` for one more refresh, so the meetings'
 *   documents get their races' last status.
 *
 * A day never listed is due at once; a failed refresh is retried after a back-off.
 */
import type { DiscoveryStatus } from '@racewire/client/protocol';
import { FINISHED_STATUSES, type RaceWatch } from '../track/race-watch.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
/** A race this close to its start (or past it, not finished) keeps its day refreshed often. */
export const LIVE_HORIZON_MS = 60 * MINUTE;
/** A race still not finished this long after its start is stuck upstream: it no longer keeps a day live. */
export const STUCK_AFTER_MS = 6 * 60 * MINUTE;
/** Cadence of a day with races ahead but none live. */
export const AHEAD_INTERVAL_MS = 10 * MINUTE;
/** Longest wait before retrying a day whose refresh failed. */
const MAX_RETRY_MS = MINUTE;

export type DayCadence = 'live' | 'ahead' | 'settled';

export interface DayWindow {
  /** `YYYY-MM-DD`, sent as both `date_from` and `date_to`. */
  date: string;
  /** When its last complete refresh (every page) started: the next is due a cadence after it. */
  refreshedAt?: number;
  /** Races its last complete refresh listed. */
  raceIds: readonly string[];
  /** Whether every race was finished (or stuck) when its last complete refresh ended. */
  listedSettled?: boolean;
  /** Refreshes that failed in a row. */
  failures: number;
  /** When the last failure happened. */
  failedAt?: number;
  /** Why the last refresh failed (cleared by a complete one). */
  error?: { code: string; message: string };
  /** What the last complete refresh raised an alarm about (it kept what it read). */
  alarm?: { code: string; message: string };
}

/**
 * A day as its last complete listing left it: what a leader publishes (cluster-state.ts, `freshness`) so that
 * the next term starts with the day windows instead of listing every day again (handed-over.ts).
 */
export interface ListedDay {
  date: string;
  refreshedAt: number;
  raceIds: readonly string[];
  listedSettled: boolean;
}

/** The windows a term starts with, from its predecessor's listed days: the due times carry on. */
export function windowsFromListed(days: readonly ListedDay[], now: number): Map<string, DayWindow> {
  const dates = new Set(windowDates(now));
  return new Map(
    days
      .filter((d) => dates.has(d.date))
      .map((d) => [d.date, { ...d, raceIds: [...d.raceIds], failures: 0 }]),
  );
}

/** Discovery's health as /readyz and /v1/ops show it (a wire type: the SDK declares it). */
export type { DiscoveryStatus };

export interface Cadences {
  liveIntervalMs: number;
  aheadIntervalMs: number;
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Yesterday, today and tomorrow at `now`, as UTC dates, oldest first. */
export function windowDates(now: number): string[] {
  return [isoDate(now - DAY), isoDate(now), isoDate(now + DAY)];
}

export function dayCadence(
  window: DayWindow,
  races: ReadonlyMap<string, RaceWatch>,
  now: number,
): DayCadence {
  let pending = false;
  for (const id of window.raceIds) {
    const race = races.get(id);
    if (!race || FINISHED_STATUSES.has(race.status)) continue;
    if (race.startTime < now - STUCK_AFTER_MS) continue;
    if (race.startTime <= now + LIVE_HORIZON_MS) return 'live';
    pending = true;
  }
  if (pending || window.raceIds.length === 0) return 'ahead';
  return window.listedSettled ? 'settled' : 'live';
}

/** When the day should next be refreshed (epoch ms; Infinity: never). */
export function windowDueAt(
  window: DayWindow,
  races: ReadonlyMap<string, RaceWatch>,
  now: number,
  cadences: Cadences,
): number {
  if (window.failures > 0 && window.failedAt !== undefined) {
    return window.failedAt + Math.min(MAX_RETRY_MS, cadences.liveIntervalMs * 2 ** window.failures);
  }
  if (window.refreshedAt === undefined) return now;
  const cadence = dayCadence(window, races, now);
  if (cadence === 'settled') return Number.POSITIVE_INFINITY;
  return window.refreshedAt + (cadence === 'live' ? cadences.liveIntervalMs : cadences.aheadIntervalMs);
}

/** The windows of `now`: known ones kept (by date), new days added, days that rolled out dropped. */
export function currentWindows(known: ReadonlyMap<string, DayWindow>, now: number): Map<string, DayWindow> {
  const out = new Map<string, DayWindow>();
  for (const date of windowDates(now)) out.set(date, known.get(date) ?? { date, raceIds: [], failures: 0 });
  return out;
}

export function discoveryStatus(windows: Iterable<DayWindow>): DiscoveryStatus {
  const failing: DiscoveryStatus['failing'] = [];
  const alarms: DiscoveryStatus['alarms'] = [];
  const iso = (ms: number | undefined) => new Date(ms ?? 0).toISOString();
  for (const w of windows) {
    if (w.failures > 0 && w.error) {
      failing.push({ date: w.date, ...w.error, failures: w.failures, failedAt: iso(w.failedAt) });
    }
    if (w.alarm) alarms.push({ date: w.date, ...w.alarm, refreshedAt: iso(w.refreshedAt) });
  }
  return { ok: failing.length === 0, failing, alarms };
}
