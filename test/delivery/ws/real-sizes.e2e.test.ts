/**
 * Subscriptions at real sizes (issue 13): real documents are ~195 KB, a meeting of 12 races ~2.4 MB. A reader
 * that keeps up gets every document; only a connection that does not drain over time is closed.
 */

import type { SnapshotMessage } from '@racewire/client/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { realDoc, realDocBytes } from '../support/real-doc.js';
import { addRace, clientPool, type Harness, PARTNER_KEY, startHarness } from './harness.js';

let h: Harness;
const clients = clientPool();
const client = clients.client;

afterEach(async () => {
  clients.terminateAll();
  await h?.close();
});

const RACES = Array.from({ length: 12 }, (_, i) => `R${i + 1}`);

async function meetingOfRealRaces() {
  for (const r of RACES) {
    addRace(h, r);
    await h.publishDoc(r, realDoc(r));
  }
}

describe('snapshots at real sizes', () => {
  it('gives a reader that keeps up every snapshot of a 12-race meeting of real documents', async () => {
    expect(realDocBytes).toBeGreaterThan(190_000);
    h = await startHarness();
    await meetingOfRealRaces();
    const c = client(`${h.url}?token=${PARTNER_KEY}`);
    c.send({ op: 'subscribe', channel: 'meeting:M1' });
    for (const r of RACES) {
      const snap = await c.seen<SnapshotMessage>((m) => m.type === 'snapshot' && m.stream === r, 15_000);
      expect(snap.document).toEqual(realDoc(r));
    }
    expect(c.closeCode).toBeUndefined();
    expect(h.gateway.stats().slowDisconnects).toBe(0);
  });

  it('serves a resume storm from seq 0 in full within the byte caps of its caches', async () => {
    const caps = { replayCacheBytes: 1024 * 1024, snapshotCacheBytes: 1024 * 1024 };
    h = await startHarness({ limits: caps });
    const races = RACES.slice(0, 8);
    for (const r of races) {
      addRace(h, r);
      await h.publishDoc(r, realDoc(r));
      for (let n = 1; n <= 3; n++) await h.publishDoc(r, realDoc(r, n));
    }
    const epoch = (await h.log.head('R1')).epoch;
    const from = Object.fromEntries(races.map((r) => [r, { seq: 0, epoch }]));
    const storm = Array.from({ length: 40 }, () => client(`${h.url}?token=${PARTNER_KEY}`));
    let peak = { replay: 0, snapshot: 0 };
    const sample = setInterval(() => {
      const m = h.hub.stats().memory;
      peak = {
        replay: Math.max(peak.replay, m.replayCacheBytes),
        snapshot: Math.max(peak.snapshot, m.snapshotCacheBytes),
      };
    }, 5);
    for (const c of storm) c.send({ op: 'subscribe', channel: 'meeting:M1', from });
    try {
      for (const c of storm) {
        for (const r of races)
          await c.seen((m) => m.type === 'patch' && m.stream === r && m.seq === 4, 20_000);
      }
    } finally {
      clearInterval(sample);
    }
    for (const c of storm) {
      expect(c.closeCode).toBeUndefined();
      // Every entry from seq 1, exactly once per stream.
      for (const r of races) {
        const seqs = c.received
          .filter((m) => 'seq' in m && m.stream === r)
          .map((m) => (m as { seq: number }).seq);
        expect(seqs).toEqual([1, 2, 3, 4]);
      }
    }
    expect(peak.replay).toBeLessThanOrEqual(caps.replayCacheBytes);
    expect(peak.snapshot).toBeLessThanOrEqual(caps.snapshotCacheBytes);
    expect(h.gateway.stats().slowDisconnects).toBe(0);
  });

  it('closes a connection that stops draining only after it owed too much for slowConsumerMs of wall time', async () => {
    h = await startHarness({
      limits: { maxBufferedBytes: 256 * 1024, slowConsumerMs: 10_000, hardBufferedBytes: 64 * 1024 * 1024 },
    });
    addRace(h, 'R1');
    await h.publishDoc('R1', realDoc('R1'));
    const slow = client(`${h.url}?token=${PARTNER_KEY}`);
    const fast = client(`${h.url}?token=${PARTNER_KEY}`);
    for (const c of [slow, fast]) c.send({ op: 'subscribe', channel: 'race:R1' });
    await slow.nextOfType('snapshot');
    await fast.nextOfType('snapshot');
    (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
    // Live snapshots (a patch judged too large) until the paused socket owes well past the soft limit.
    let n = 1;
    while (h.hub.stats().memory.queuedBytes < 2 * 1024 * 1024) {
      await h.log
        .append('R1', {
          entries: [{ kind: 'snapshot', document: realDoc('R1', n) }],
          document: realDoc('R1', n),
          now: new Date(h.clock.now()),
        })
        .then((e) => h.bus.publish(e));
      n++;
      await new Promise((r) => setImmediate(r));
    }
    const lastSeq = (await h.log.head('R1')).seq;
    await fast.seen((m) => 'seq' in m && m.seq === lastSeq, 15_000);
    await h.clock.advance(9_999);
    expect(h.gateway.stats().slowDisconnects).toBe(0);
    await h.clock.advance(1);
    expect(h.gateway.stats().slowDisconnects).toBe(1);
    (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
    expect(await slow.closed).toBe(4008);
    expect(fast.ws.readyState).toBe(fast.ws.OPEN);
  });
});
