/** The WebSocket gateway's and REST API's view of the races the poller knows. */
import type { RaceCatalog } from '../delivery/ws/catalog.js';
import type { Poller } from './poller.js';

export function createRaceCatalog(poller: Poller): RaceCatalog {
  return {
    race(raceId) {
      const race = poller.races().get(raceId);
      if (!race) return undefined;
      const { meetingId, country, category, status, startTime } = race;
      return { raceId, meetingId, country, category, status, startTime };
    },
    racesOfMeeting(meetingId) {
      const ids: string[] = [];
      for (const race of poller.races().values()) if (race.meetingId === meetingId) ids.push(race.raceId);
      return ids;
    },
    staleness: (raceId) => poller.staleness(raceId),
  };
}
