/**
 * A follower's view of the day's races: built from the meeting documents in the shared log (the leader's
 * discovery writes each meeting's races, statuses and starts there) and the leader's freshness, so every
 * node lists the same races, accepts subscriptions to them and reports their staleness without polling.
 */
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../clock.js';
import type { EventLog } from '../store/ports.js';
import type { Meeting } from '../upstream/schemas.js';
import type { RaceView } from '../watch/fetch/poller.js';
import { applyMeetings } from '../watch/schedule/discovery.js';
import { windowDates } from '../watch/schedule/discovery-windows.js';
import type { RaceWatch } from '../watch/track/race-watch.js';
import type { Freshness } from './cluster-state.js';

export interface SharedRaceView extends RaceView {
  /** Reads every meeting document again (start-up, and periodically in case a bus batch was missed). */
  refresh(): Promise<void>;
  close(): void;
}

const isMeetingStream = (stream: string) => stream.startsWith('meeting:');

export function createSharedRaceView(deps: {
  log: EventLog;
  bus: Bus;
  clock: Clock;
  freshness: () => Freshness | undefined;
  onError: (err: unknown) => void;
}): SharedRaceView {
  const meetings = new Map<string, Meeting>();
  let races: ReadonlyMap<string, RaceWatch> = new Map();

  const rebuild = () => {
    const now = deps.clock.now();
    // A meeting dated before yesterday has rolled out of every node's day windows (discovery-windows.ts), as
    // its races out of the poller's: it leaves the view. Kept, the view held every meeting the log was ever
    // seen to hold, and rebuilt them all on every bus batch: found by the week-long Redis soak (issue 23),
    // whose heap after GC grew from day 2 on where the SQLite soak's, without the view, did not.
    const oldest = windowDates(now)[0]!;
    for (const [stream, meeting] of meetings) {
      if (String(meeting.date).slice(0, 10) < oldest) meetings.delete(stream);
    }
    races = applyMeetings(new Map(), [...meetings.values()], now).races;
  };
  const load = async (stream: string) => {
    const doc = (await deps.log.head(stream)).document as Meeting | undefined;
    if (doc && Array.isArray(doc.races)) meetings.set(stream, doc);
  };

  const unsubscribe = deps.bus.subscribe((entries) => {
    const stream = entries[0]?.stream;
    if (stream === undefined || !isMeetingStream(stream)) return;
    load(stream).then(rebuild, deps.onError);
  });

  return {
    async refresh() {
      const streams = (await deps.log.streams()).filter(isMeetingStream);
      await Promise.all(streams.map(load));
      rebuild();
    },
    races: () => races,
    staleness(raceId) {
      const at = deps.freshness()?.lastGoodAt[raceId];
      return at === undefined ? undefined : deps.clock.now() - at;
    },
    lastDiscoveryAt: () => deps.freshness()?.discoveredAt ?? undefined,
    listedDays: () => deps.freshness()?.days ?? [],
    close: unsubscribe,
  };
}

const noRaces: RaceView = {
  races: () => new Map(),
  staleness: () => undefined,
  lastDiscoveryAt: () => undefined,
  listedDays: () => [],
};

/**
 * What a node shows of the day: its own poller once it has discovered (or always, on a single node, which
 * has nothing else), else the leader's as shared through the log.
 */
export function nodeRaceView(own: () => RaceView | undefined, shared?: RaceView): () => RaceView {
  return () => {
    const poller = own();
    if (poller && (poller.lastDiscoveryAt() !== undefined || !shared)) return poller;
    return shared ?? noRaces;
  };
}
