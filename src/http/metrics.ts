/**
 * Prometheus metrics (prom-client), one registry per process. Modules record through the named metrics here so
 * every metric is defined once; `/metrics` exposes them. Gauges that mirror state (budget, staleness, sockets)
 * are collected on scrape from the functions passed in, not pushed on every change.
 */
import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type AuthFailures, checkBearer, sendTooManyFailures } from './auth-failures.js';
import { errorBody } from './errors.js';

export interface MetricSources {
  budget?: () => { used: number; left: number; queued: number };
  staleness?: () => Iterable<{ raceId: string; ms: number }>;
  outboxDepth?: () => number | Promise<number>;
  /** STORE=redis: whether this node holds the poller lease, whether Redis answers, and the data losses it
   * noticed (a wiped or replaced Redis: src/backend/redis-generation.ts). */
  cluster?: () => Promise<{ leader: boolean; redisUp: boolean; dataLost: boolean; dataLosses: number }>;
  /** Days of the discovery window whose last refresh failed (undefined while this node does not poll). */
  discoveryFailingDays?: () => number | undefined;
}

/** `node` labels every series, so one Prometheus scrapes several nodes apart. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one declaration per metric and no logic: the registry's catalogue read in one place
export function createMetrics(node?: string) {
  const registry = new Registry();
  if (node !== undefined) registry.setDefaultLabels({ node });
  collectDefaultMetrics({ register: registry });
  const sources: MetricSources = {};
  const metrics = {
    registry,
    sources,
    upstreamRequests: new Counter({
      name: 'racewire_upstream_requests_total',
      help: 'Upstream requests by operation and outcome',
      labelNames: ['operation', 'outcome'] as const,
      registers: [registry],
    }),
    events: new Counter({
      name: 'racewire_events_total',
      help: 'Events detected, by type',
      labelNames: ['type'] as const,
      registers: [registry],
    }),
    patchBytes: new Histogram({
      name: 'racewire_patch_bytes',
      help: 'Size of each patch or snapshot appended, in bytes',
      labelNames: ['kind'] as const,
      buckets: [64, 256, 1024, 4096, 16_384, 65_536, 262_144],
      registers: [registry],
    }),
    rejectedPayloads: new Counter({
      name: 'racewire_rejected_payloads_total',
      help: 'Upstream payloads refused by validation (no events made from them), by code',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    droppedRows: new Counter({
      name: 'racewire_dropped_rows_total',
      help: 'Rows dropped from upstream payloads by validation (the rest of the payload used), by collection and code',
      labelNames: ['collection', 'code'] as const,
      registers: [registry],
    }),
    echoOmitted: new Counter({
      name: 'racewire_upstream_echo_omitted_total',
      help: 'Accepted /meetings responses whose params echo leaves out a member the description lists, by member',
      labelNames: ['member'] as const,
      registers: [registry],
    }),
    discoveryAlarms: new Counter({
      name: 'racewire_discovery_alarms_total',
      help: 'Days whose listing stopped early, keeping what it read (DISCOVERY_OFFSET_IGNORED), by code',
      labelNames: ['code'] as const,
      registers: [registry],
    }),
    recordingDropped: new Counter({
      name: 'racewire_recording_dropped_total',
      help: 'Upstream responses RECORD_DIR did not record: buffer_full (the writer fell behind) or write_failed',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    webhookDeliveries: new Counter({
      name: 'racewire_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookLatency: new Histogram({
      name: 'racewire_webhook_attempt_seconds',
      help: 'Webhook attempt latency',
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      registers: [registry],
    }),
  };
  new Gauge({
    name: 'racewire_upstream_budget',
    help: 'Upstream requests used and left in the current 60 s window, and queued',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const b = sources.budget?.();
      if (!b) return;
      this.set({ state: 'used' }, b.used);
      this.set({ state: 'left' }, b.left);
      this.set({ state: 'queued' }, b.queued);
    },
  });
  new Gauge({
    name: 'racewire_race_staleness_seconds',
    help: 'Seconds since the last usable payload of each watched race',
    labelNames: ['race_id'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { raceId, ms } of sources.staleness?.() ?? []) this.set({ race_id: raceId }, ms / 1000);
    },
  });
  new Gauge({
    name: 'racewire_webhook_outbox_depth',
    help: 'Webhook deliveries pending',
    registers: [registry],
    async collect() {
      this.set((await sources.outboxDepth?.()) ?? 0);
    },
  });
  new Gauge({
    name: 'racewire_discovery_failing_days',
    help: 'Days of the discovery window (yesterday, today, tomorrow) whose last /meetings refresh failed',
    registers: [registry],
    collect() {
      const failing = sources.discoveryFailingDays?.();
      if (failing !== undefined) this.set(failing);
    },
  });
  new Gauge({
    name: 'racewire_cluster_leader',
    help: 'STORE=redis: 1 while this node holds the poller lease',
    registers: [registry],
    async collect() {
      const c = await sources.cluster?.();
      if (c) this.set(c.leader ? 1 : 0);
    },
  });
  new Gauge({
    name: 'racewire_redis_up',
    help: 'STORE=redis: 1 while Redis answered the last cluster sync and this scrape; 0: Redis-backed figures are the last known',
    registers: [registry],
    async collect() {
      const c = await sources.cluster?.();
      if (c) this.set(c.redisUp ? 1 : 0);
    },
  });
  new Gauge({
    name: 'racewire_redis_data_lost',
    help: 'STORE=redis: 1 from a Redis data loss this node noticed (wiped or replaced) until an operator restores the webhook endpoints',
    registers: [registry],
    async collect() {
      const c = await sources.cluster?.();
      if (c) this.set(c.dataLost ? 1 : 0);
    },
  });
  new Counter({
    name: 'racewire_redis_data_losses_total',
    help: 'STORE=redis: Redis data losses (wiped or replaced) this node noticed',
    registers: [registry],
    async collect() {
      const c = await sources.cluster?.();
      // The count lives with the generation watch; the counter mirrors it on scrape.
      if (c) {
        this.reset();
        this.inc(c.dataLosses);
      }
    },
  });
  return metrics;
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Counts dropped rows by the collection their path ends in (`data.meetings[0].races[3]` -> races). */
export function countDroppedRows(
  metrics: Metrics,
  rows: readonly { path: string; code: string }[] | undefined,
): void {
  for (const row of rows ?? []) {
    const collection = /([A-Za-z_]+)\[\d+\]$/.exec(row.path)?.[1] ?? 'unknown';
    metrics.droppedRows.inc({ collection, code: row.code });
  }
}

/**
 * `GET /metrics`. With `token` (METRICS_TOKEN) a scraper must send it as a bearer token; wrong tokens count
 * toward the address's failure limit like the admin API's. Without it the route is open, as Prometheus
 * expects by default: keep it off public interfaces then (docs/operations.md).
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  metrics: Metrics,
  guard?: { token: string; authFailures: AuthFailures },
): void {
  app.get(
    '/metrics',
    { schema: { tags: ['operations'], summary: 'Prometheus metrics' } },
    async (req, reply) => {
      if (guard) {
        const verdict = checkBearer(guard.authFailures, req.ip, req.headers.authorization, guard.token);
        if (!verdict.ok && verdict.status === 429)
          return sendTooManyFailures(reply, verdict.retryAfterSeconds);
        if (!verdict.ok) {
          return reply
            .code(401)
            .header('www-authenticate', 'Bearer')
            .send(errorBody('unauthorized', 'GET /metrics needs the METRICS_TOKEN bearer token'));
        }
      }
      reply.header('content-type', metrics.registry.contentType);
      return metrics.registry.metrics();
    },
  );
}
