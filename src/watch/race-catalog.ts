/** The WebSocket gateway's and REST API's view of the races this node knows (its current race view). */
import type { RaceCatalog } from '../delivery/core/catalog.js';
import type { RaceView } from './poller.js';

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
