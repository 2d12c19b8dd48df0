/**
 * What the delivery tests feed the gateway and the SSE endpoint with, as the pipeline would: a memory event
 * log, a bus, a manual clock, a catalog of races, and helpers that append a document change (snapshot first,
 * then patches) or an event and publish what was stored.
 */
import fjp from 'fast-json-patch';
import { type Bus, createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import type { ApiKey } from '../../src/delivery/core/auth.js';
import type { CatalogRace, RaceCatalog } from '../../src/delivery/core/catalog.js';
import type { NewEntry } from '../../src/events/envelope.js';
import { createMemoryEventLog, type MemoryEventLogOptions } from '../../src/store/memory-event-log.js';
import type { EventLog } from '../../src/store/ports.js';

export const PARTNER_KEY = 'partner-secret-key';
export const PUBLIC_KEY = 'public-key';

export const testKeys = (): Map<string, ApiKey> =>
  new Map<string, ApiKey>([
    [PARTNER_KEY, { name: 'partner', scope: 'partner' }],
    [PUBLIC_KEY, { name: 'public', scope: 'public' }],
  ]);

export interface Feed {
  log: EventLog;
  bus: Bus;
  clock: ManualClock;
  catalog: RaceCatalog & { races: Map<string, CatalogRace>; stale: Map<string, number> };
  docs: Map<string, unknown>;
  /** Appends the change from the stream's current document to `next` (patch, or snapshot first) and publishes. */
  publishDoc(stream: string, next: unknown, events?: Array<{ type: string; data: unknown }>): Promise<void>;
  publishEvent(stream: string, type: string, data: unknown): Promise<void>;
}

export function createFeed(logOptions?: MemoryEventLogOptions): Feed {
  const log = createMemoryEventLog(logOptions);
  const bus = createMemoryBus((err) => {
    throw err;
  });
  const clock = createManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const races = new Map<string, CatalogRace>();
  const stale = new Map<string, number>();
  const catalog = {
    races,
    stale,
    race: (id: string) => races.get(id),
    racesOfMeeting: (m: string) => [...races.values()].filter((r) => r.meetingId === m).map((r) => r.raceId),
    staleness: (id: string) => stale.get(id),
  };
  const docs = new Map<string, unknown>();
  const meetingOf = (stream: string) => races.get(stream)?.meetingId ?? 'M1';
  const append = async (stream: string, entries: NewEntry[], document?: unknown) => {
    bus.publish(await log.append(stream, { entries, document, now: new Date(clock.now()) }));
  };
  return {
    log,
    bus,
    clock,
    catalog,
    docs,
    async publishDoc(stream, next, events = []) {
      const prev = docs.get(stream);
      const entries: NewEntry[] = [
        prev === undefined
          ? { kind: 'snapshot', document: next }
          : { kind: 'patch', ops: fjp.compare(prev as object, next as object) },
      ];
      for (const e of events) {
        entries.push({
          kind: 'event',
          event: { type: e.type, meetingId: meetingOf(stream), raceId: stream, data: e.data },
        });
      }
      docs.set(stream, structuredClone(next));
      await append(stream, entries, next);
    },
    async publishEvent(stream, type, data) {
      const raceId = stream.startsWith('meeting:') ? undefined : stream;
      const meetingId = raceId ? meetingOf(stream) : stream.slice('meeting:'.length);
      await append(stream, [{ kind: 'event', event: { type, meetingId, raceId, data } }]);
    },
  };
}
