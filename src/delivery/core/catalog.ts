/**
 * What the gateway needs to know about races, supplied by the lead's composition root (the scheduler's
 * view of the day). Kept as a port so the gateway is testable with a plain object.
 */
export interface CatalogRace {
  raceId: string;
  meetingId: string;
  /** Country code as the API gives it (AUS, NZ, ...). */
  country: string;
  /** Racing code: T (thoroughbred), H (harness), G (greyhound). */
  category: string;
  status: string;
  /** Advertised start, ms since the epoch. */
  startTime: number;
}

export interface RaceCatalog {
  race(raceId: string): CatalogRace | undefined;
  racesOfMeeting(meetingId: string): string[];
  /** Milliseconds since the last good fetch of the race; undefined when never fetched. */
  staleness(raceId: string): number | undefined;
}
