/**
 * The REST views' wire types (docs/rest.md): the operations summary `GET /v1/ops` answers and the board
 * reads. The SDK owns them, as it owns the WebSocket messages, so the server (src/http/race-routes.ts) and its
 * clients take them from one place and no client imports the server's sources. Types only.
 */

/** Where the data comes from; the board badges anything but the racing API. */
export type UpstreamKind = 'racing API' | 'replay' | 'embedded simulator';

/** Requests a minute by slice of the budget: `discovery`, `nearJump`, `postJump`, `lateScratchings`, `earlyScratchings`. */
export type SliceCounts = Record<string, number>;

/** Discovery's health as /readyz and /v1/ops show it: failing while any day's last refresh failed. */
export interface DiscoveryStatus {
  ok: boolean;
  /** Days whose last refresh failed: the error's code and message, failures in a row, since when. */
  failing: { date: string; code: string; message: string; failures: number; failedAt: string }[];
  /** Days whose last complete refresh raised an alarm. */
  alarms: { date: string; code: string; message: string; refreshedAt: string }[];
}

/** The process's memory and, with the SQLite store, its database's bytes on disk. */
export interface ProcessUsage {
  rssBytes: number;
  heapUsedBytes: number;
  /** STORE=sqlite: the database files' bytes on disk; absent with another store. */
  dataDirBytes?: number;
}

/** A Redis this node found wiped or replaced (docs/redis.md). */
export interface DataLoss {
  code: 'RW_REDIS_DATA_LOST';
  /** wiped: the key was gone (this node made the next one); replaced: another generation was there. */
  reason: 'wiped' | 'replaced';
  /** Wall-clock ms when this node noticed. */
  since: number;
}

/** Whether this node leads and whether its store answers, for the ops summary and the metrics. */
export interface NodeStatus {
  node: string;
  leader: boolean;
  redisUp: boolean;
  /** STORE=redis: the data loss this node noticed (a wiped or replaced Redis), until an operator restores. */
  dataLost?: DataLoss | null;
  /** STORE=redis: data losses this node noticed since it started. */
  dataLosses?: number;
}

export interface OpsSummary {
  time: number;
  clockSpeed: number;
  /** Requests a minute of the race clock (`clockSpeed` times faster than the wall clock). */
  budget: {
    maxPerMinute: number;
    used: number;
    left: number;
    queued: number;
    /** The upstream answered 429: every request waits (the one state of the budget that is a fault). */
    paused: boolean;
    /** The races ask for more than the budget, so the scheduler spends it all: the design, not a fault. */
    saturated: boolean;
    /** Discovery's share: one /meetings page per refresh of a live day. */
    discoveryPerMinute: number;
    /** Races within 10 min of their start or running, and their planned share of the races' requests. */
    nearJump: number;
    nearJumpShare: number;
    /** Requests a minute by slice of the budget: planned now; spent by this node in the last minute (null: it does not poll). */
    slices: { planned: SliceCounts; spent: SliceCounts | null };
  };
  /** For each race still to fetch that has data, the interval (ms, race clock) the scheduler intends for it now. */
  plannedMs: Record<string, number>;
  races: { watched: number; settled: number };
  ws: { connections: number; subscribers: number; slowDisconnects: number };
  sse: { connections: number; subscribers: number; slowDisconnects: number };
  /** `stale`: the store did not answer in time (Redis away); the figures are the last read. */
  webhooks: { pending: number; failing: number; stale?: true };
  /** This node's discovery while it polls, else null: failing days (code, message) and alarms. */
  discovery: DiscoveryStatus | null;
  /** This process's memory and, with STORE=sqlite, its database's bytes on disk (process-usage.ts). */
  process: ProcessUsage;
  /** STORE=redis: this node, whether it holds the poller lease, and whether Redis answers. */
  cluster?: NodeStatus;
}

/**
 * `/v1/ops`: the summary, plus the age (ms) of each unfinished race's last usable data. The ages change on
 * every request, so they live here and not in `/v1/meetings`, whose ETag then holds while the day does not
 * change. `upstream` says where the data comes from, so the board can say when it is simulated.
 */
export type OpsView = OpsSummary & { staleMs: Record<string, number>; upstream: UpstreamKind };
