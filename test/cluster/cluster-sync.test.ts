import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import type { ClusterState } from '../../src/cluster/cluster-state.js';
import { createClusterSync, type Reachability } from '../../src/cluster/cluster-sync.js';
import type { SharedRaceView } from '../../src/cluster/shared-race-view.js';

/** A cluster state that records what each sync published, failing while `down` says so. */
function fakeState(down: () => boolean) {
  const published: { subscribers: Record<string, number>; leader: boolean; at: number }[] = [];
  const wall = createManualClock(1_000_000);
  const state = {
    intervalMs: 1_000,
    async sync(own) {
      if (down()) throw new Error('redis away');
      published.push({
        subscribers: Object.fromEntries(own.subscribers),
        leader: own.freshness !== undefined,
        at: wall.now(),
      });
    },
  } as Pick<ClusterState, 'sync' | 'intervalMs'> as ClusterState;
  return { state, published, wall };
}

describe('the cluster sync', () => {
  it('publishes every interval of wall time from start to stop, and refreshes the view on return, when leading stops and every fifth sync of a follower', async () => {
    let down = false;
    let leader = false;
    const { state, published, wall } = fakeState(() => down);
    let refreshes = 0;
    const view = { refresh: async () => void refreshes++ } as SharedRaceView;
    const reach: Reachability = { up: false };
    const sync = createClusterSync({
      state,
      view,
      reach,
      wall,
      logger: pino({ level: 'silent' }),
      nodeId: 'a',
      isLeader: () => leader,
      localSubscribers: () => new Map([['R1', 2]]),
      freshness: () => ({ discoveredAt: null, lastGoodAt: {}, days: [] }),
    });
    await wall.advance(5_000);
    expect(published).toEqual([]); // built, not started: nothing runs

    sync.start();
    await wall.advance(0);
    expect([published.length, reach.up, refreshes]).toEqual([1, true, 1]);
    leader = true;
    await wall.advance(4_000);
    expect(published.map((p) => [p.at - 1_005_000, p.leader])).toEqual([
      [0, false],
      [1_000, true],
      [2_000, true],
      [3_000, true],
      [4_000, true],
    ]);
    expect(published[0]!.subscribers).toEqual({ R1: 2 });
    expect(refreshes).toBe(1);
    await wall.advance(1_000); // the fifth sync since Redis came back: a leader shows its own poller's races
    expect(refreshes).toBe(1);
    leader = false;
    await wall.advance(1_000); // it stopped leading: the view it shows now is read at once
    expect(refreshes).toBe(2);
    await wall.advance(4_000);
    expect(refreshes).toBe(2);
    await wall.advance(1_000); // the fifth sync of a follower since it read the view
    expect(refreshes).toBe(3);

    down = true;
    await wall.advance(1_000);
    expect(reach.up).toBe(false);
    down = false;
    await wall.advance(1_000);
    expect([reach.up, refreshes]).toEqual([true, 4]);

    await sync.stop();
    const count = published.length;
    await wall.advance(10_000);
    expect(published.length).toBe(count);
  });
});
