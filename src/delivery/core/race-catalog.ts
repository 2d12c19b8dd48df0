/**
 * The gateway's race catalog (catalog.ts) over the races this node knows (its current race view). Here, beside
 * the port it fills, so the watch layer below does not import the delivery layer.
 */
import type { RaceView } from '../../watch/fetch/poller.js';
import type { RaceCatalog } from './catalog.js';

export function createRaceCatalog(view: () => RaceView): RaceCatalog {
  return {
    race(raceId) {
      const race = view().races().get(raceId);
      if (!race) return undefined;
      const { meetingId, country, category, status, startTime } = race;
      return { raceId, meetingId, country, category, status, startTime };
    },
    racesOfMeeting(meetingId) {
      const ids: string[] = [];
      for (const race of view().races().values()) if (race.meetingId === meetingId) ids.push(race.raceId);
      return ids;
    },
    staleness: (raceId) => view().staleness(raceId),
  };
}
