/**
 * The cluster sync of a Redis node: every `intervalMs` of wall time (heartbeats a peer reads), it publishes this
 * node's subscriber counts (and, while it leads, its freshness) and reads the others' (cluster-state.ts), and
 * every fifth sync while it follows, on Redis's return and when it stops leading, reads the shared race view
 * again. A leader shows its own poller's races (`nodeRaceView`) and the bus keeps the shared view current, so
 * its periodic re-read of every meeting document (about 20 head reads a request at the real budget, a quarter
 * of the soak's redis-server CPU, and growing by a race day's meetings every day) bought nothing. Whether that sync reached Redis is
 * the node's `redisUp`. It is built after the poller and the hub, whose figures it publishes, and runs from
 * the node's start to its stop.
 */
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { ClusterState, Freshness } from './cluster-state.js';
import type { SharedRaceView } from './shared-race-view.js';

const VIEW_REFRESH_EVERY = 5; // syncs

/** Whether Redis answered the last sync: written by the sync, read by the node's status and its logs. */
export interface Reachability {
  up: boolean;
}

/** What this node publishes: its own subscribers, and its poller's freshness (read while it leads). */
export interface SyncSources {
  localSubscribers: () => ReadonlyMap<string, number>;
  freshness: () => Omit<Freshness, 'leader'>;
}

export interface Service {
  start(): void;
  /** Stops and waits for a sync in flight. */
  stop(): Promise<void>;
}

export function createClusterSync(
  deps: SyncSources & {
    state: ClusterState;
    view: SharedRaceView;
    isLeader: () => boolean;
    reach: Reachability;
    wall: Clock;
    logger: Logger;
    nodeId: string;
  },
): Service {
  const { state, view, reach, logger } = deps;
  const stop = new AbortController();
  let loop: Promise<void> | undefined;
  let syncs = 0;
  let led = false;

  const syncOnce = async () => {
    try {
      await state.sync({
        subscribers: deps.localSubscribers(),
        freshness: deps.isLeader() ? deps.freshness() : undefined,
      });
      const back = !reach.up;
      if (back) logger.info({ node: deps.nodeId }, 'redis reachable');
      reach.up = true;
      const leading = deps.isLeader();
      const stoppedLeading = led && !leading;
      led = leading;
      if (back || stoppedLeading || (++syncs % VIEW_REFRESH_EVERY === 0 && !leading)) await view.refresh();
    } catch (err) {
      if (reach.up)
        logger.warn({ err: (err as Error).message }, 'redis unreachable; serving what this node has');
      reach.up = false;
    }
  };

  return {
    start() {
      loop ??= (async () => {
        while (!stop.signal.aborted) {
          await syncOnce();
          await deps.wall.sleep(state.intervalMs, stop.signal).catch(() => {});
        }
      })();
    },
    async stop() {
      stop.abort();
      await loop;
    },
  };
}

/** Nothing to tell: a single node has no peers. */
export const noSync: Service = { start() {}, stop: async () => {} };
