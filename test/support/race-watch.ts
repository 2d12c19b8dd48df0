/** A race as the poller watches it: an Open thoroughbred race with nothing fetched yet, for scheduler tests. */
import type { RaceWatch } from '../../src/watch/track/race-watch.js';

export function watchedRace(
  fields: Pick<RaceWatch, 'raceId' | 'startTime' | 'discoveredAt'> & Partial<RaceWatch>,
): RaceWatch {
  return {
    meetingId: 'm',
    meetingName: 'M',
    raceNumber: 1,
    name: fields.raceId,
    country: 'NZ',
    category: 'T',
    status: 'Open',
    dirty: false,
    dividends: 'none',
    failures: 0,
    ...fields,
  };
}
