/**
 * The limits every transport shares (WebSocket and Server-Sent Events): one table, documented in
 * docs/protocol.md and docs/operations.md. Times are wall-clock milliseconds.
 */
export interface DeliveryLimits {
  /**
   * What a connection may owe (queued plus buffered by its socket) for longer than `slowConsumerMs` before it
   * is closed as a slow consumer. @default 1 MiB
   */
  maxBufferedBytes: number;
  /** What a connection may owe at all; above it the connection is closed at once. @default 8 MiB */
  hardBufferedBytes: number;
  /** How long a connection may owe more than `maxBufferedBytes`. @default 10000 */
  slowConsumerMs: number;
  /** How long a slow consumer gets to read its close before the socket is destroyed. @default 5000 */
  slowCloseGraceMs: number;
  /**
   * Snapshots and replay pages are queued only while a connection owes less than this: a subscription's
   * streams go out one by one as the socket drains. @default 64 KiB
   */
  paceBytes: number;
  /** Client messages per second per key (anonymous: per address); an SSE request costs one per channel. @default 20 */
  messagesPerSecond: number;
  /** Burst allowance of the message rate. @default 40 */
  messageBurst: number;
  /** Open connections per key (anonymous: per address), WebSocket and SSE together. @default 100 */
  maxConnectionsPerKey: number;
  /** Channels per connection. @default 200 */
  maxSubscriptions: number;
  /** Channels per key (anonymous: per address) over all its connections. @default 2000 */
  maxSubscriptionsPerKey: number;
  /** Application heartbeat interval. @default 15000 */
  heartbeatMs: number;
  /** Entries per log read when replaying. @default 500 */
  replayPageSize: number;
  /** Serialised replay pages shared between resuming clients, in bytes. @default 32 MiB */
  replayCacheBytes: number;
  /** Serialised snapshot documents shared between subscribers, in bytes. @default 64 MiB */
  snapshotCacheBytes: number;
  /** First retry after a stream could not be read from the log; doubles up to 30 s. @default 1000 */
  attachRetryMs: number;
}

export const DEFAULT_DELIVERY_LIMITS: DeliveryLimits = {
  maxBufferedBytes: 1024 * 1024,
  hardBufferedBytes: 8 * 1024 * 1024,
  slowConsumerMs: 10_000,
  slowCloseGraceMs: 5_000,
  paceBytes: 64 * 1024,
  messagesPerSecond: 20,
  messageBurst: 40,
  maxConnectionsPerKey: 100,
  maxSubscriptions: 200,
  maxSubscriptionsPerKey: 2000,
  heartbeatMs: 15_000,
  replayPageSize: 500,
  replayCacheBytes: 32 * 1024 * 1024,
  snapshotCacheBytes: 64 * 1024 * 1024,
  attachRetryMs: 1000,
};

/** Longest wait between retries of a stream that could not be read. */
export const MAX_ATTACH_RETRY_MS = 30_000;
