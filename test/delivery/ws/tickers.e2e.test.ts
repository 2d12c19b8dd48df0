import { afterEach, describe, expect, it } from 'vitest';
import { parseProjection, project } from '../../../src/delivery/core/projection.js';
import { PARTNER_KEY as SSE_KEY, SseClient, type SseHarness, startSse } from '../sse/harness.js';
import { follow } from '../support/follow.js';
import { addRace, clientPool, type Harness, raceDoc, startHarness } from './harness.js';

let h: Harness | undefined;
let s: SseHarness | undefined;
const clients = clientPool();
afterEach(async () => {
  clients.terminateAll();
  await h?.close();
  await s?.close();
  h = undefined;
  s = undefined;
});
const partner = clients.partner;

const FIELDS = ['/race/status', '/runners/*/odds'];
const projection = (() => {
  const p = parseProjection(FIELDS);
  if (!p.ok) throw new Error(p.message);
  return p.projection;
})();

describe('projection and conflation', () => {
  it('sends a projected subscriber only the asked fields, and a patch with no ops when nothing of them changed', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner(h.url);
    c.send({ op: 'subscribe', channel: 'race:R1', fields: FIELDS });
    const snap = await c.nextOfType('snapshot');
    expect(snap.document).toEqual({
      race: { status: 'Open' },
      runners: { E1: { odds: { win: 2 } }, E2: { odds: { win: 5 } } },
    });
    await h.publishDoc('R1', raceDoc('R1', 1));
    const first = await c.nextOfType('patch');
    expect(first).toMatchObject({ seq: 2, base: 1 });
    expect(first.ops).toEqual(
      expect.arrayContaining([
        { op: 'replace', path: '/runners/E1/odds/win', value: 2.1 },
        { op: 'replace', path: '/runners/E2/odds/win', value: 5.1 },
      ]),
    );
    expect(first.ops).toHaveLength(2);
    await h.publishDoc('R1', raceDoc('R1', 1, { class: 'BM72' }));
    expect(await c.nextOfType('patch')).toMatchObject({ seq: 3, base: 2, ops: [] });
    await h.publishDoc('R1', raceDoc('R1', 4, { status: 'Closed' }));
    await c.seen((m) => m.type === 'patch' && m.seq === 4);
    expect(follow(c.received, 'R1').doc).toEqual(project((await h.log.head('R1')).document, projection));
  });

  it('refuses bad fields and conflateMs with bad_request', async () => {
    h = await startHarness();
    const c = partner(h.url);
    c.send({ op: 'subscribe', channel: 'race:R1', fields: ['/runners/0/odds'], reqId: 'f' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'bad_request', reqId: 'f' });
    c.send({ op: 'subscribe', channel: 'race:R1', conflateMs: 5, reqId: 'c' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'bad_request', reqId: 'c' });
    c.send({ op: 'subscribe', channel: 'firehose', conflateMs: 1000, reqId: 'h' });
    expect(await c.nextOfType('error')).toMatchObject({ code: 'bad_request', reqId: 'h' });
  });

  it('conflates a burst into events in order and one merged patch per interval on the wall clock', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = partner(h.url);
    c.send({ op: 'subscribe', channel: 'race:R1', conflateMs: 1000 });
    await c.nextOfType('snapshot');
    for (let n = 1; n <= 5; n++) {
      await h.publishDoc('R1', raceDoc('R1', n), n === 3 ? [{ type: 'odds.changed', data: { n } }] : []);
    }
    await h.publishEvent('R1', 'runner.scratched', { entrantId: 'E2' });
    c.send({ op: 'ping', reqId: 'before' });
    await c.nextOfType('pong');
    expect(c.received.filter((m) => m.type === 'patch' || m.type === 'event')).toEqual([]);
    await h.clock.advance(1000);
    const ev = await c.nextOfType('event');
    // Seqs: patches 2, 3, 4 (+ its event 5), 6, 7, then the scratching 8.
    expect(ev).toMatchObject({ seq: 5, prevSeq: 1, event: { type: 'odds.changed' } });
    const patch = await c.nextOfType('patch');
    expect(patch).toMatchObject({ seq: 7, base: 1, prevSeq: 5 });
    expect([...patch.ops].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { op: 'replace', path: '/runners/E1/odds/win', value: 2.5 },
      { op: 'replace', path: '/runners/E2/odds/win', value: 5.5 },
    ]);
    expect(await c.nextOfType('event')).toMatchObject({
      seq: 8,
      prevSeq: 7,
      event: { type: 'runner.scratched' },
    });
    const copy = follow(c.received, 'R1');
    expect({ doc: copy.doc, seq: copy.seq }).toEqual({ doc: (await h.log.head('R1')).document, seq: 8 });
  });

  it('projects and conflates over SSE from the query string', async () => {
    s = await startSse();
    await s.publishDoc('R1', raceDoc('R1', 0));
    const c = new SseClient(`${s.base}/v1/sse?channel=race:R1&fields=/race/status&conflateMs=500`, {
      headers: { authorization: `Bearer ${SSE_KEY}` },
    });
    try {
      expect((await c.nextData()).data).toMatchObject({
        type: 'snapshot',
        document: { race: { status: 'Open' } },
      });
      await s.publishDoc('R1', raceDoc('R1', 1, { status: 'Closed' }));
      await s.publishDoc('R1', raceDoc('R1', 2, { status: 'Final' }));
      await s.clock.advance(500);
      const patch = await c.nextData();
      expect(patch.data).toMatchObject({
        type: 'patch',
        seq: 3,
        base: 1,
        prevSeq: 1,
        ops: [{ op: 'replace', path: '/race/status', value: 'Final' }],
      });
      expect(patch.id?.endsWith('|3')).toBe(true);
    } finally {
      c.close();
    }
  });
});
