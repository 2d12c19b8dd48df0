/** The subscription core's metrics (metrics.ts), read on scrape from the hub's own counters. */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDeliveryMetrics } from '../../../src/delivery/core/metrics.js';
import { addRace, type CoreHarness, PARTNER, raceDoc, startCore } from './harness.js';

let h: CoreHarness;
afterEach(async () => {
  await h?.close();
});

/** The scrape's sample lines (no HELP or TYPE), one string each. */
async function samples(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
}

describe('subscription core metrics', () => {
  it('reports connections, subscriptions, refusals, slow closes, messages and memory per transport', async () => {
    h = startCore({ limits: { maxConnectionsPerKey: 2, maxBufferedBytes: 1024, slowConsumerMs: 1000 } });
    const registry = new Registry();
    registerDeliveryMetrics(registry, h.hub);
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    const slow = h.connect(PARTNER, 'ws');
    expect(() => h.connect(PARTNER, 'sse')).toThrow('refused');
    c.send({ op: 'subscribe', channel: 'race:R1' });
    await c.seen((m) => m.type === 'snapshot');
    slow.send({ op: 'subscribe', channel: 'race:R1' });
    await slow.seen((m) => m.type === 'snapshot');
    slow.sink.stopReading();
    await h.publishDoc('R1', { ...raceDoc('R1', 1), pad: 'x'.repeat(2048) });
    await h.clock.advance(1000);
    expect(slow.sink.ended?.code).toBe(4008);
    const stats = h.hub.stats();
    const lines = await samples(registry);
    expect(lines).toEqual(
      expect.arrayContaining([
        'racewire_stream_connections{transport="ws"} 2',
        'racewire_stream_connections{transport="sse"} 0',
        'racewire_stream_subscriptions{transport="ws"} 2',
        'racewire_stream_slow_disconnects_total{transport="ws"} 1',
        'racewire_stream_rejected_total{transport="sse"} 1',
        'racewire_stream_rejected_total{transport="ws"} 0',
        `racewire_stream_messages_total{transport="ws"} ${stats.ws.messagesSent}`,
        `racewire_stream_bytes_total{transport="ws"} ${stats.ws.bytesSent}`,
        `racewire_delivery_memory_bytes{pool="snapshot_cache"} ${stats.memory.snapshotCacheBytes}`,
        'racewire_delivery_memory_limit_bytes{pool="connection_soft"} 1024',
        `racewire_delivery_memory_limit_bytes{pool="connection_hard"} ${8 * 1024 * 1024}`,
      ]),
    );
    // Two subscribed answers, two snapshots, two patches (the slow one's still counts: it was queued).
    expect(stats.ws.messagesSent).toBe(6);
    expect(stats.memory.snapshotCacheBytes).toBeGreaterThan(0);
  });
});
