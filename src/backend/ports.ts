/**
 * A backend: everything that holds or shares state, built for one driver (config STORE) behind the same
 * ports, so the composition root wires one shape whatever runs underneath. Drivers: memory (tests, no disk),
 * sqlite (one durable node, the default), redis (several nodes on one Redis). docs/architecture.md has the
 * picture.
 */
import type { NodeStatus } from '@racewire/client/protocol';
import type { Bus } from '../bus/bus.js';
import type { Clock } from '../clock.js';
import type { Service, SyncSources } from '../cluster/cluster-sync.js';
import type { Leadership } from '../cluster/leadership.js';
import type { LeaseTrust } from '../cluster/lease.js';
import type { SharedRaceView } from '../cluster/shared-race-view.js';
import type { Config } from '../config.js';
import type { WebhookStore } from '../delivery/webhooks/index.js';
import type { ReadinessCheck } from '../http/readiness-state.js';
import type { Logger } from '../logger.js';
import type { EventLog } from '../store/ports.js';
import type { RateWindow } from '../upstream/rate-window.js';

export type Driver = 'memory' | 'sqlite' | 'redis';

export interface BackendOptions {
  config: Pick<
    Config,
    | 'DATA_DIR'
    | 'EVENT_LOG_WINDOW'
    | 'REDIS_URL'
    | 'REDIS_PREFIX'
    | 'REDIS_ALLOW_VOLATILE'
    | 'NODE_ID'
    | 'LEASE_TTL_MS'
    | 'RACING_API_MAX_RPM'
    | 'RACING_API_URL'
    | 'SECRETS_KEY'
  >;
  /** Race time (the simulator may run it faster). */
  clock: Clock;
  /**
   * Wall time: the webhook outbox's timestamps, retry schedules and rotation overlaps, the lease and the
   * cluster sync (peers read what they write).
   */
  wallClock: Clock;
  logger: Logger;
  /** How far a Redis node trusts its lease locally; only tests of the fence loosen it. @default leaseTrust */
  leaseTrust?: LeaseTrust;
}

/** Whether this node leads and whether its store answers (a wire type of /v1/ops: the SDK declares it). */
export type { NodeStatus };

export interface Backend {
  readonly driver: Driver;
  /** Several nodes share this backend: series get a `node` label and the ops summary a `cluster` part. */
  readonly distributed: boolean;
  readonly nodeId: string;
  readonly log: EventLog;
  readonly bus: Bus;
  /** Where the webhook outbox lives. */
  readonly webhookStore: WebhookStore;
  readonly leadership: Leadership;
  /** The request budget every node spends from (the limiter's `sharedWindow`). */
  readonly requestWindow: RateWindow;
  /** Subscribers per race over every node sharing the backend, given this node's own (`local`). */
  subscribers(local: ReadonlyMap<string, number>): ReadonlyMap<string, number>;
  /**
   * What this node tells the others and reads from them, built once the poller and the hub whose figures it
   * publishes exist; the composition root starts and stops it. A single node has no one to tell.
   */
  clusterSync(sources: SyncSources): Service;
  /** The day's races as the leader's discovery wrote them to the log: a follower's view. Absent on one node. */
  readonly sharedView?: SharedRaceView;
  readiness(): ReadinessCheck[];
  status(): NodeStatus;
  /** Stops leading first, then closes what the backend opened. */
  close(): Promise<void>;
}

export type BackendFactory = (opts: BackendOptions) => Promise<Backend>;
