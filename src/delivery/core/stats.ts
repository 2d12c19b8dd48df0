/** What the subscription core counts, per transport and in memory (for /v1/ops and /metrics). */
export interface TransportStats {
  connections: number;
  connectionsTotal: number;
  subscriptions: number;
  slowDisconnects: number;
  /** Connections refused for a limit (connections per key, rate). */
  rejected: number;
  messagesSent: number;
  bytesSent: number;
}

export interface HubStats {
  ws: TransportStats;
  sse: TransportStats;
  memory: { queuedBytes: number; replayCacheBytes: number; snapshotCacheBytes: number };
}

export const emptyStats = (): TransportStats => ({
  connections: 0,
  connectionsTotal: 0,
  subscriptions: 0,
  slowDisconnects: 0,
  rejected: 0,
  messagesSent: 0,
  bytesSent: 0,
});
