/**
 * What a new term learns of its predecessor's fetches, so that it does not fetch first what was fetched
 * seconds before the hand-over. A fresh poller knows no document, and a race near its jump with none goes
 * before everything but discovery (scheduler.ts); when leadership changed hands every few seconds (a loaded
 * machine, a 1.5 s lease: the nemesis at load 15), each term fetched the same first races near their jump
 * again and the rest waited: 5 of 9 such races past the 30th request of a wipe (seed 2322112446, 4 terms).
 *
 * The leader publishes each race's last good fetch (cluster-state.ts, `freshness`), which every node reads.
 * A race fetched within HANDED_OVER_MAX_AGE_MS keeps that as its `lastGoodAt` in the new term (so the term
 * publishes it on, and the next one knows it too), but only when the log holds its document: after a wiped
 * Redis the races have none, whatever a resumed ex-leader still publishes. The new term still fetches every
 * race near its jump first, those nobody fetched lately before those handed over, oldest first (scheduler.ts,
 * `handedOverAt`: any fetch within the minute, document or not, so that after a kill and then a wipe the
 * races the first term fetched go after those it had not reached: seed 23655512).
 *
 * It also starts with its predecessor's races (the meeting documents every node reads) and the days it
 * listed in full (published with the freshness), so it lists each day again when that day's cadence says,
 * not all three at once: after a wipe with four terms in its first 38 requests, 11 were a new term's
 * listings and a race near its jump waited until request 38 (seed 261368). A day the predecessor had not
 * listed, or a term after a wiped Redis (no freshness published), lists at once as before.
 */
import type { EventLog } from '../../store/ports.js';
import type { HandedOver, RaceView } from './poller.js';

/** A fetch older than this is not worth knowing: the race is due again by then (a minute at the jump is long). */
export const HANDED_OVER_MAX_AGE_MS = 60_000;

/** Race id -> clock ms of its predecessor's last good fetch, within the last minute, document or not. */
export function fetchedLately(view: RaceView, now: number): Map<string, number> {
  const recent = new Map<string, number>();
  for (const raceId of view.races().keys()) {
    const age = view.staleness(raceId);
    if (age !== undefined && age >= 0 && age <= HANDED_OVER_MAX_AGE_MS) recent.set(raceId, now - age);
  }
  return recent;
}

/** Race id -> clock ms of its predecessor's last good fetch, for races whose document the log holds. */
export async function handedOverFetches(
  view: RaceView,
  log: Pick<EventLog, 'head'>,
  now: number,
): Promise<Map<string, number>> {
  const recent = [...fetchedLately(view, now)];
  const heads = await Promise.all(recent.map(([raceId]) => log.head(raceId)));
  return new Map(recent.filter((_, i) => heads[i]!.documentSeq > 0));
}

/** What a new term starts with (poller.ts, `HandedOver`); its predecessor's fetches as above. */
export async function handedOver(
  view: RaceView,
  log: Pick<EventLog, 'head'>,
  now: number,
): Promise<HandedOver> {
  return {
    fetchedBefore: await handedOverFetches(view, log, now),
    fetchedLately: fetchedLately(view, now),
    races: view.races(),
    days: view.listedDays(),
    discoveredAt: view.lastDiscoveryAt(),
  };
}
