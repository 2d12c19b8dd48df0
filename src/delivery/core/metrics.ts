/**
 * The subscription core's metrics, collected on scrape from the hub: connections, subscriptions and
 * slow-consumer closes per transport, and the memory the caches and send queues hold beside their caps.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { DeliveryHub } from './hub.js';
import type { TransportStats } from './stats.js';

const TRANSPORTS = ['ws', 'sse'] as const;

export function registerDeliveryMetrics(registry: Registry, hub: DeliveryHub): void {
  const perTransport = (name: string, help: string, pick: (s: TransportStats) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ['transport'] as const,
      registers: [registry],
      collect() {
        const stats = hub.stats();
        for (const t of TRANSPORTS) this.set({ transport: t }, pick(stats[t]));
      },
    });
  const totalPerTransport = (name: string, help: string, pick: (s: TransportStats) => number) =>
    new Counter({
      name,
      help,
      labelNames: ['transport'] as const,
      registers: [registry],
      collect() {
        const stats = hub.stats();
        this.reset();
        for (const t of TRANSPORTS) this.inc({ transport: t }, pick(stats[t]));
      },
    });
  perTransport('racewire_stream_connections', 'Open subscriber connections', (s) => s.connections);
  perTransport('racewire_stream_subscriptions', 'Channels subscribed', (s) => s.subscriptions);
  totalPerTransport(
    'racewire_stream_slow_disconnects_total',
    'Connections closed as slow consumers',
    (s) => s.slowDisconnects,
  );
  totalPerTransport(
    'racewire_stream_rejected_total',
    'Connections refused for a per-key limit (connections, rate)',
    (s) => s.rejected,
  );
  totalPerTransport(
    'racewire_stream_messages_total',
    'Stream messages queued to subscribers',
    (s) => s.messagesSent,
  );
  totalPerTransport('racewire_stream_bytes_total', 'Bytes queued to subscribers', (s) => s.bytesSent);
  new Gauge({
    name: 'racewire_delivery_memory_bytes',
    help: 'Bytes held by the subscription core: replay_cache, snapshot_cache, send_queues (all connections)',
    labelNames: ['pool'] as const,
    registers: [registry],
    collect() {
      const m = hub.stats().memory;
      this.set({ pool: 'replay_cache' }, m.replayCacheBytes);
      this.set({ pool: 'snapshot_cache' }, m.snapshotCacheBytes);
      this.set({ pool: 'send_queues' }, m.queuedBytes);
    },
  });
  new Gauge({
    name: 'racewire_delivery_memory_limit_bytes',
    help: 'Caps of the subscription core: replay_cache, snapshot_cache, and per connection connection_soft and connection_hard',
    labelNames: ['pool'] as const,
    registers: [registry],
    collect() {
      const l = hub.limits;
      this.set({ pool: 'replay_cache' }, l.replayCacheBytes);
      this.set({ pool: 'snapshot_cache' }, l.snapshotCacheBytes);
      this.set({ pool: 'connection_soft' }, l.maxBufferedBytes);
      this.set({ pool: 'connection_hard' }, l.hardBufferedBytes);
    },
  });
}
