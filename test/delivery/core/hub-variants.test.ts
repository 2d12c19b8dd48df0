/**
 * What each subscriber's variant receives, without sockets (harness.ts): the public audience (redact.ts),
 * a field projection (projection.ts), and conflation on the wall clock (conflation.ts), each checked by
 * rebuilding the client's copy with `follow` (a gap, duplicate or wrong base throws).
 */
import type { PatchMessage, SnapshotMessage } from '@racewire/client/protocol';
import fjp from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { parseProjection, project } from '../../../src/delivery/core/projection.js';
import { follow } from '../support/follow.js';
import { addRace, type CoreHarness, PUBLIC, raceDoc, startCore } from './harness.js';

let h: CoreHarness;
afterEach(async () => {
  await h?.close();
});

const FIELDS = ['/race/status', '/runners/*/odds'];
const projection = (() => {
  const p = parseProjection(FIELDS);
  if (!p.ok) throw new Error(p.message);
  return p.projection;
})();

describe('subscription core: audiences', () => {
  it('sends public subscribers no restricted field in snapshots, patches or added runners, and partners all', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const pub = h.connect(PUBLIC);
    const par = h.connect();
    for (const c of [pub, par]) c.send({ op: 'subscribe', channel: 'race:R1' });
    const pubSnap = await pub.seen<SnapshotMessage>((m) => m.type === 'snapshot');
    const parSnap = await par.seen<SnapshotMessage>((m) => m.type === 'snapshot');
    expect(parSnap.document).toEqual(raceDoc('R1', 0));
    const next = raceDoc('R1', 1, { class: 'BM72', track_surface: 'Dirt' }) as ReturnType<typeof raceDoc> & {
      runners: Record<string, unknown>;
    };
    next.runners.E1 = { ...next.runners.E1, form_comment: 'changed' };
    next.runners.E3 = { entrant_id: 'E3', name: 'Charlie', win_p: 0.3, spr: 88 };
    await h.publishDoc('R1', next, [{ type: 'runner.added', data: { entrantId: 'E3', spr: 88 } }]);
    const pubPatch = await pub.seen<PatchMessage>((m) => m.type === 'patch');
    const parPatch = await par.seen<PatchMessage>((m) => m.type === 'patch');
    const restricted = /form_comment|last_starts|class|track_surface|win_p|spr/;
    expect(JSON.stringify(pub.received)).not.toMatch(restricted);
    expect(JSON.stringify(parPatch)).toMatch(/form_comment/);
    expect(JSON.stringify(parPatch)).toMatch(/win_p/);
    expect(pubPatch.seq).toBe(parPatch.seq);
    const pubDoc = fjp.applyPatch(structuredClone(pubSnap.document), pubPatch.ops, true, false).newDocument;
    expect(pubDoc).toEqual({
      race: { event_id: 'R1', meeting_id: 'M1', country: 'AUS', type: 'T', status: 'Open' },
      runners: {
        E1: { entrant_id: 'E1', name: 'Alpha', barrier: 1, odds: { win: 2.1 } },
        E2: { entrant_id: 'E2', name: 'Bravo', barrier: 2, odds: { win: 5.1 } },
        E3: { entrant_id: 'E3', name: 'Charlie' },
      },
    });
    expect(par.received.find((m) => m.type === 'event')).toMatchObject({ event: { data: { spr: 88 } } });
  });

  it('still sends a patch emptied by redaction, so public seqs stay contiguous', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const pub = h.connect(PUBLIC);
    pub.send({ op: 'subscribe', channel: 'race:R1' });
    await pub.seen((m) => m.type === 'snapshot');
    await h.publishDoc('R1', raceDoc('R1', 0, { class: 'Group 1' }));
    expect(await pub.atSeq('R1', 2)).toEqual({
      type: 'patch',
      stream: 'R1',
      seq: 2,
      base: 1,
      ops: [],
      timestamp: expect.any(String),
    });
  });
});

describe('subscription core: projection and conflation', () => {
  it('sends a projected subscriber only the asked fields, and a patch with no ops when nothing of them changed', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', fields: FIELDS });
    const snap = await c.seen<SnapshotMessage>((m) => m.type === 'snapshot');
    expect(snap.document).toEqual({
      race: { status: 'Open' },
      runners: { E1: { odds: { win: 2 } }, E2: { odds: { win: 5 } } },
    });
    await h.publishDoc('R1', raceDoc('R1', 1));
    const first = (await c.atSeq('R1', 2)) as PatchMessage;
    expect(first).toMatchObject({ type: 'patch', base: 1 });
    expect([...first.ops].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { op: 'replace', path: '/runners/E1/odds/win', value: 2.1 },
      { op: 'replace', path: '/runners/E2/odds/win', value: 5.1 },
    ]);
    await h.publishDoc('R1', raceDoc('R1', 1, { class: 'BM72' }));
    expect(await c.atSeq('R1', 3)).toMatchObject({ type: 'patch', base: 2, ops: [] });
    await h.publishDoc('R1', raceDoc('R1', 4, { status: 'Closed' }));
    await c.atSeq('R1', 4);
    expect(follow(c.received, 'R1').doc).toEqual(project((await h.log.head('R1')).document, projection));
  });

  it('conflates a burst into events in order and one merged patch per interval on the wall clock', async () => {
    h = startCore();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    const plain = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', conflateMs: 1000 });
    plain.send({ op: 'subscribe', channel: 'race:R1' });
    await c.seen((m) => m.type === 'snapshot');
    await plain.seen((m) => m.type === 'snapshot');
    const start = h.clock.now(); // a whole second: the tick is 1000 ms later
    expect(start % 1000).toBe(0);
    for (let n = 1; n <= 5; n++)
      await h.publishDoc('R1', raceDoc('R1', n), n === 3 ? [{ type: 'odds.changed', data: { n } }] : []);
    await h.publishEvent('R1', 'runner.scratched', { entrantId: 'E2' });
    await plain.atSeq('R1', 8); // the unconflated subscriber has had everything meanwhile
    await h.clock.advance(999);
    expect(c.received.filter((m) => m.type === 'patch' || m.type === 'event')).toEqual([]);
    await h.clock.advance(1);
    await c.atSeq('R1', 8);
    // Seqs: patches 2, 3, 4 (+ its event 5), 6, 7, then the scratching 8.
    const live = c.received.filter((m) => m.type === 'patch' || m.type === 'event');
    expect(live.map((m) => [m.type, 'seq' in m && m.seq, 'prevSeq' in m && m.prevSeq])).toEqual([
      ['event', 5, 1],
      ['patch', 7, 5],
      ['event', 8, 7],
    ]);
    const patch = live[1] as PatchMessage;
    expect(patch.base).toBe(1);
    expect([...patch.ops].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { op: 'replace', path: '/runners/E1/odds/win', value: 2.5 },
      { op: 'replace', path: '/runners/E2/odds/win', value: 5.5 },
    ]);
    expect(live[0]).toMatchObject({ event: { type: 'odds.changed' } });
    const copy = follow(c.received, 'R1');
    expect({ doc: copy.doc, seq: copy.seq }).toEqual({ doc: (await h.log.head('R1')).document, seq: 8 });
  });

  it('flushes what conflation holds before a heartbeat, so the heartbeat never names a seq not yet sent', async () => {
    h = startCore({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = h.connect();
    c.send({ op: 'subscribe', channel: 'race:R1', conflateMs: 60_000 });
    await c.seen((m) => m.type === 'snapshot');
    await h.publishDoc('R1', raceDoc('R1', 1));
    await h.publishDoc('R1', raceDoc('R1', 2));
    await h.clock.advance(5000);
    await c.seen((m) => m.type === 'heartbeat');
    expect(c.received.map((m) => m.type)).toEqual(['subscribed', 'snapshot', 'patch', 'heartbeat']);
    expect(c.received[2]).toMatchObject({ seq: 3, base: 1, prevSeq: 1 });
    expect(c.received[3]).toMatchObject({ streams: { R1: { seq: 3 } } });
    expect(follow(c.received, 'R1').doc).toEqual(raceDoc('R1', 2));
  });
});
