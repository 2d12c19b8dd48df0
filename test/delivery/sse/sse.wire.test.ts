import fjp from 'fast-json-patch';
import { afterEach, describe, expect, it } from 'vitest';
import { PARTNER_KEY, PUBLIC_KEY, raceDoc, SseClient, type SseHarness, startSse } from './harness.js';

let h: SseHarness;
const clients: SseClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await h?.close();
});

function connect(
  query: string,
  opts: { key?: string; lastEventId?: string; transport?: 'fetch' | 'http' } = {},
) {
  const headers: Record<string, string> = {};
  if (opts.key) headers.authorization = `Bearer ${opts.key}`;
  if (opts.lastEventId !== undefined) headers['last-event-id'] = opts.lastEventId;
  const c = new SseClient(`${h.base}/v1/sse?${query}`, { headers, transport: opts.transport });
  clients.push(c);
  return c;
}

type Msg = { type: string; stream: string; seq: number; [k: string]: unknown };

describe('GET /v1/sse', () => {
  it('streams a snapshot then patches and events from which the client rebuilds the log document', async () => {
    h = await startSse();
    await h.publishDoc('R1', raceDoc('R1', 1));
    const c = connect('channel=race:R1', { key: PARTNER_KEY, transport: 'http' });
    await c.ready;
    expect(c.status).toBe(200);
    expect(c.messages[0]?.retry ?? (await c.next((m) => m.retry !== undefined)).retry).toBe(3000);
    const snap = await c.nextData<Msg & { document: unknown; epoch: string }>();
    expect(snap.event).toBe('snapshot');
    const epoch = snap.data.epoch;
    expect(snap.id).toBe(`R1|${epoch}|1`);
    expect(snap.data).toMatchObject({ type: 'snapshot', stream: 'R1', seq: 1, documentSeq: 1 });
    let doc = structuredClone(snap.data.document);

    await h.publishDoc('R1', raceDoc('R1', 2), [{ type: 'odds.changed', data: { entrantId: 'E1' } }]);
    await h.publishDoc('R1', raceDoc('R1', 3, { status: 'Closed' }));
    const seen: string[] = [];
    for (let i = 0; i < 3; i++) {
      const m = await c.nextData<Msg & { ops: fjp.Operation[] }>();
      seen.push(`${m.event}:${m.data.seq}:${m.id}`);
      if (m.event === 'patch') doc = fjp.applyPatch(doc, m.data.ops, true, false).newDocument;
    }
    expect(seen).toEqual([`patch:2:R1|${epoch}|2`, `event:3:R1|${epoch}|3`, `patch:4:R1|${epoch}|4`]);
    expect(doc).toEqual((await h.log.head('R1')).document);
  });

  it('resumes after a disconnect from Last-Event-ID with nothing missing and nothing twice', async () => {
    h = await startSse();
    await h.publishDoc('R1', raceDoc('R1', 1));
    // node:http so that closing really drops the TCP connection (undici keeps an aborted one a while).
    const first = connect('channel=race:R1', { key: PARTNER_KEY, transport: 'http' });
    await first.nextData();
    await h.publishDoc('R1', raceDoc('R1', 2));
    await first.nextData();
    const lastId = first.lastEventId;
    first.close();
    for (let n = 3; n <= 5; n++) await h.publishDoc('R1', raceDoc('R1', n)); // missed: seq 3, 4, 5

    const second = connect('channel=race:R1', { key: PARTNER_KEY, lastEventId: lastId });
    const resumed = await second.nextData<Msg>();
    expect(resumed.event).toBe('resumed');
    expect(resumed.data).toMatchObject({ type: 'resumed', stream: 'R1', fromSeq: 2 });
    const seqs: number[] = [];
    for (let i = 0; i < 3; i++) seqs.push((await second.nextData<Msg>()).data.seq);
    await h.publishDoc('R1', raceDoc('R1', 6)); // live after the replay
    seqs.push((await second.nextData<Msg>()).data.seq);
    expect(seqs).toEqual([3, 4, 5, 6]);
    await h.publishEvent('R1', 'runner.scratched', { entrantId: 'E2' });
    expect((await second.nextData<Msg>()).data.seq).toBe(7);
    expect(second.messages.filter((m) => m.event && m.event !== 'resumed').length).toBe(5);
  });

  it('resumes every stream of a meeting from the one Last-Event-ID an EventSource sends', async () => {
    h = await startSse();
    h.addRace('R1');
    h.addRace('R2');
    await h.publishDoc('R1', raceDoc('R1', 1));
    await h.publishDoc('R2', raceDoc('R2', 1));
    await h.publishEvent('meeting:M1', 'race.added', { raceId: 'R2' });
    const first = connect('channel=meeting:M1', { key: PARTNER_KEY, transport: 'http' });
    for (let i = 0; i < 3; i++) await first.nextData();
    const lastId = first.lastEventId;
    expect(
      lastId
        .split(',')
        .map((p) => p.split('|')[0])
        .sort(),
    ).toEqual(['R1', 'R2', 'meeting:M1']);
    first.close();
    await h.publishDoc('R2', raceDoc('R2', 2));
    await h.publishEvent('meeting:M1', 'meeting.updated', {});

    const second = connect('channel=meeting:M1', { key: PARTNER_KEY, lastEventId: lastId });
    const got: string[] = [];
    for (let i = 0; i < 5; i++) {
      const m = await second.nextData<Msg>();
      got.push(`${m.event}:${m.data.stream}:${m.data.type === 'resumed' ? m.data.fromSeq : m.data.seq}`);
    }
    expect(got.sort()).toEqual(
      ['resumed:R1:1', 'resumed:R2:1', 'patch:R2:2', 'resumed:meeting:M1:1', 'event:meeting:M1:2'].sort(),
    );
    expect(second.messages.some((m) => m.event === 'snapshot')).toBe(false);
  });

  it('sends a fresh snapshot with resumed:false when the position is too old or from another epoch', async () => {
    h = await startSse({ logOptions: { window: 2, newEpoch: () => 'e1' } });
    for (let n = 1; n <= 5; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const old = connect('channel=race:R1', { key: PARTNER_KEY, lastEventId: 'R1|e1|1' });
    const snap = await old.nextData<Msg>();
    expect(snap.event).toBe('snapshot');
    expect(snap.data).toMatchObject({ seq: 5, resumed: false, reason: 'too_old', epoch: 'e1' });
    expect(snap.id).toBe('R1|e1|5');

    const other = connect('channel=race:R1', { key: PARTNER_KEY, lastEventId: 'R1|e0|4' });
    expect((await other.nextData<Msg>()).data).toMatchObject({
      seq: 5,
      resumed: false,
      reason: 'epoch_mismatch',
    });
  });

  it('prefers the Last-Event-ID header over a lastEventId in the query', async () => {
    h = await startSse({ logOptions: { newEpoch: () => 'e1' } });
    for (let n = 1; n <= 3; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const c = connect('channel=race:R1&lastEventId=R1%7Ce1%7C1', {
      key: PARTNER_KEY,
      lastEventId: 'R1|e1|2',
    });
    expect((await c.nextData<Msg>()).data).toMatchObject({ type: 'resumed', fromSeq: 2 });
    const q = connect('channel=race:R1&lastEventId=R1%7Ce1%7C1', { key: PARTNER_KEY });
    expect((await q.nextData<Msg>()).data).toMatchObject({ type: 'resumed', fromSeq: 1 });
  });

  it('never sends restricted fields to public subscribers, and keeps their seq continuity', async () => {
    h = await startSse();
    await h.publishDoc('R1', raceDoc('R1', 1));
    const pub = connect('channel=race:R1', { key: PUBLIC_KEY });
    const anon = connect('channel=race:R1');
    const partner = connect('channel=race:R1', { key: PARTNER_KEY });
    const pubSnap = await pub.next();
    expect(pubSnap.data).not.toMatch(/form_comment|last_starts|"class"/);
    expect((await anon.next()).data).toBe(pubSnap.data);
    expect((await partner.next()).data).toMatch(/form_comment/);

    const changed = raceDoc('R1', 1);
    changed.runners.E1.form_comment = 'new secret comment';
    await h.publishDoc('R1', changed);
    const pubPatch = JSON.parse((await pub.next()).data!) as Msg;
    expect(pubPatch).toMatchObject({ type: 'patch', seq: 2, base: 1, ops: [] });
    const partnerPatch = JSON.parse((await partner.next()).data!) as Msg;
    expect(partnerPatch.ops).toEqual([
      { op: 'replace', path: '/runners/E1/form_comment', value: 'new secret comment' },
    ]);
  });

  it('writes a heartbeat comment on the clock', async () => {
    h = await startSse({ limits: { heartbeatMs: 1000 } });
    const c = connect('channel=race:R9');
    const snap = await c.nextData<Msg>();
    expect(snap.data).toMatchObject({ type: 'snapshot', seq: 0, document: null });
    await h.clock.advance(1000);
    const hb = await c.next((m) => m.comment !== undefined);
    expect(hb.comment).toBe('hb 2026-11-22T10:00:01.000Z');
  });

  it('attaches a race that joins a followed meeting later', async () => {
    h = await startSse();
    const c = connect('channel=meeting:M1', { key: PARTNER_KEY });
    expect((await c.nextData<Msg>()).data).toMatchObject({ type: 'snapshot', stream: 'meeting:M1' });
    h.addRace('R3');
    await h.publishDoc('R3', raceDoc('R3', 1));
    const m = await c.nextData<Msg>();
    expect(m.data).toMatchObject({ type: 'snapshot', stream: 'R3', seq: 1 });
    expect(m.id?.split(',').length).toBe(2);
  });

  it('ends the response of a client that reads too slowly, and the client resumes from its last id', async () => {
    h = await startSse({ limits: { maxBufferedBytes: 64 * 1024 } });
    const c = connect('channel=race:R1', { key: PARTNER_KEY, transport: 'http' });
    await c.nextData();
    c.pause();
    const big = 'x'.repeat(32 * 1024);
    let n = 0;
    while (h.endpoint.stats().slowDisconnects === 0 && n < 2000) {
      await h.publishEvent('R1', 'note', { big, n: n++ });
      await new Promise((r) => setImmediate(r));
    }
    expect(h.endpoint.stats().slowDisconnects).toBe(1);
    c.resume();
    await c.waitEnd();
    const lastSeq = Number(c.lastEventId.split('|')[2]);
    expect(lastSeq).toBeLessThan(n);
    const again = connect('channel=race:R1', { key: PARTNER_KEY, lastEventId: c.lastEventId });
    expect((await again.nextData<Msg>()).data).toMatchObject({ type: 'resumed', fromSeq: lastSeq });
    expect((await again.nextData<Msg>()).data.seq).toBe(lastSeq + 1);
  });

  it('counts its subscribers per race for the poller, a meeting for each of its races', async () => {
    h = await startSse();
    h.addRace('R1');
    h.addRace('R2');
    const a = connect('channel=meeting:M1');
    const b = connect('channel=race:R1&channel=meeting:M1');
    await a.nextData();
    await b.nextData();
    expect(h.hub.subscriberCounts('sse')).toEqual(
      new Map([
        ['R1', 2],
        ['R2', 2],
      ]),
    );
    expect(h.hub.subscriberCounts('sse', new Map([['R1', 5]])).get('R1')).toBe(7);
  });

  it('ends every stream when the server closes', async () => {
    h = await startSse();
    const c = connect('channel=race:R1');
    await c.nextData();
    expect(h.endpoint.stats().connections).toBe(1);
    await h.hub.close();
    await c.waitEnd();
    expect(c.ended).toBe(true);
  });

  it('projects and conflates from the query string', async () => {
    h = await startSse();
    await h.publishDoc('R1', raceDoc('R1', 0));
    const c = connect('channel=race:R1&fields=/race/status&conflateMs=500', { key: PARTNER_KEY });
    expect((await c.nextData()).data).toMatchObject({
      type: 'snapshot',
      document: { race: { status: 'Open' } },
    });
    await h.publishDoc('R1', raceDoc('R1', 1, { status: 'Closed' }));
    await h.publishDoc('R1', raceDoc('R1', 2, { status: 'Final' }));
    await h.clock.advance(500);
    const patch = await c.nextData();
    expect(patch.data).toMatchObject({
      type: 'patch',
      seq: 3,
      base: 1,
      prevSeq: 1,
      ops: [{ op: 'replace', path: '/race/status', value: 'Final' }],
    });
    expect(patch.id?.endsWith('|3')).toBe(true);
  });
});
