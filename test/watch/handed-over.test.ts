import { describe, expect, it } from 'vitest';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { HANDED_OVER_MAX_AGE_MS, handedOver, handedOverFetches } from '../../src/watch/fetch/handed-over.js';
import type { RaceView } from '../../src/watch/fetch/poller.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';
import { snapshot } from '../store/entry-builders.js';

const NOW = Date.parse('2025-07-17T23:50:00Z');

/** The leader's races as a follower sees them, each fetched `age` ms ago (undefined: never). */
function sharedView(ages: Record<string, number | undefined>): RaceView {
  const races = new Map(Object.keys(ages).map((id) => [id, { raceId: id } as RaceWatch]));
  return {
    races: () => races,
    staleness: (id) => ages[id],
    lastDiscoveryAt: () => NOW - 1_000,
    listedDays: () => [
      { date: '2025-07-17', refreshedAt: NOW - 1_000, raceIds: ['fresh'], listedSettled: false },
    ],
  };
}

describe('handedOverFetches: what a new term knows of its predecessor', () => {
  it('takes each race fetched within the last minute whose document the log holds, as fetched then', async () => {
    const log = createMemoryEventLog();
    for (const id of ['fresh', 'old', 'edge'])
      await log.append(id, { entries: [snapshot({ id })], document: { id }, now: new Date(NOW) });
    const view = sharedView({
      fresh: 2_000,
      edge: HANDED_OVER_MAX_AGE_MS,
      old: HANDED_OVER_MAX_AGE_MS + 1,
      // Fetched, but the log lost its document (a wiped Redis): its subscribers wait for one.
      wiped: 1_000,
      never: undefined,
    });
    expect(await handedOverFetches(view, log, NOW)).toEqual(
      new Map([
        ['fresh', NOW - 2_000],
        ['edge', NOW - HANDED_OVER_MAX_AGE_MS],
      ]),
    );
  });

  it("hands on the predecessor's races, listed days and last listing with its fetches", async () => {
    const log = createMemoryEventLog();
    await log.append('fresh', {
      entries: [snapshot({ id: 'fresh' })],
      document: { id: 'fresh' },
      now: new Date(NOW),
    });
    // `wiped`: fetched 1 s ago, but the log holds no document of it (a wiped store).
    const view = sharedView({ fresh: 2_000, wiped: 1_000, never: undefined });
    const previous = await handedOver(view, log, NOW);
    expect([...previous.races.keys()]).toEqual(['fresh', 'wiped', 'never']);
    expect(previous.fetchedBefore).toEqual(new Map([['fresh', NOW - 2_000]]));
    expect(previous.fetchedLately).toEqual(
      new Map([
        ['fresh', NOW - 2_000],
        ['wiped', NOW - 1_000],
      ]),
    );
    expect(previous.days).toEqual(view.listedDays());
    expect(previous.discoveredAt).toBe(NOW - 1_000);
  });
});
