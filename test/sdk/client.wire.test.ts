import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { RacewireClient, type WebSocketFactory, type WebSocketLike } from '../../clients/js/src/index.js';
import { addRace, type Harness, PARTNER_KEY, raceDoc, startHarness } from '../delivery/ws/harness.js';

let h: Harness;
let client: RacewireClient | undefined;

afterEach(async () => {
  client?.close();
  client = undefined;
  await h?.close();
});

/** `ws` behind the browser-like interface, with hooks: tests reach the live socket and can drop or alter
 * incoming messages. */
function instrumentedWebSocket(hooks: {
  alter?: (msg: Record<string, unknown>) => Record<string, unknown> | null;
}) {
  const sockets: WebSocket[] = [];
  class Instrumented implements WebSocketLike {
    private readonly ws: WebSocket;
    onopen: WebSocketLike['onopen'] = null;
    onmessage: WebSocketLike['onmessage'] = null;
    onclose: WebSocketLike['onclose'] = null;
    onerror: WebSocketLike['onerror'] = null;

    constructor(url: string, protocols?: string[]) {
      this.ws = new WebSocket(url, protocols);
      sockets.push(this.ws);
      this.ws.on('open', () => this.onopen?.({}));
      this.ws.on('error', (e) => this.onerror?.(e));
      this.ws.on('close', (code, reason) => this.onclose?.({ code, reason: reason.toString() }));
      this.ws.on('message', (data) => {
        const parsed = JSON.parse(data.toString()) as Record<string, unknown>;
        const out = hooks.alter ? hooks.alter(parsed) : parsed;
        if (out) this.onmessage?.({ data: JSON.stringify(out) });
      });
    }

    get readyState() {
      return this.ws.readyState;
    }

    send(data: string) {
      this.ws.send(data);
    }

    close(code?: number, reason?: string) {
      this.ws.close(code, reason);
    }
  }
  return { Ctor: Instrumented as WebSocketFactory, sockets };
}

async function until(cond: () => boolean, what: string, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const headOf = async (stream: string) => h.log.head(stream);

describe('SDK against the real gateway', () => {
  it('keeps a live copy equal to the document the log holds and delivers typed events', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const { Ctor } = instrumentedWebSocket({});
    client = new RacewireClient({ url: h.url, token: PARTNER_KEY, WebSocket: Ctor });
    const events: string[] = [];
    client.on('event', (e) => events.push(`${e.type}@${e.seq}`));
    client.subscribe('race:R1');
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    for (let n = 1; n <= 10; n++)
      await h.publishDoc('R1', raceDoc('R1', n), [{ type: 'odds.changed', data: { n } }]);
    const head = await headOf('R1');
    await until(() => client!.stream('R1')?.seq === head.seq, 'last seq');
    expect(client.document('R1')).toEqual(head.document);
    expect(events).toHaveLength(10);
    expect(events[0]).toBe('odds.changed@3');
  });

  it('reconnects after the connection drops and resumes from its positions without a snapshot', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const { Ctor, sockets } = instrumentedWebSocket({});
    client = new RacewireClient({
      url: h.url,
      token: PARTNER_KEY,
      WebSocket: Ctor,
      backoff: { baseMs: 20, capMs: 50 },
    });
    const seen: number[] = [];
    const resyncs: string[] = [];
    let resumed = 0;
    client.on('event', (e) => seen.push(e.seq));
    client.on('resync', (_s, reason) => resyncs.push(reason));
    client.on('resumed', () => resumed++);
    client.subscribe('race:R1');
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    await h.publishDoc('R1', raceDoc('R1', 1), [{ type: 'odds.changed', data: {} }]);
    await until(() => client!.stream('R1')?.seq === 3, 'seq 3');
    sockets[0]!.terminate();
    await until(() => sockets[0]!.readyState === WebSocket.CLOSED, 'drop');
    for (let n = 2; n <= 6; n++)
      await h.publishDoc('R1', raceDoc('R1', n), [{ type: 'odds.changed', data: {} }]);
    const head = await headOf('R1');
    await until(() => client!.stream('R1')?.seq === head.seq, 'caught up');
    expect(client.connections).toBe(2);
    expect(resumed).toBe(1);
    expect(resyncs).toEqual([]);
    expect(seen).toEqual([3, 5, 7, 9, 11, 13]);
    expect(client.document('R1')).toEqual(head.document);
  });

  it('re-syncs when a heartbeat names a head its copy never reached (a lost last message)', async () => {
    h = await startHarness({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    // Lose the last patch on the way: no later message would reveal the gap.
    const { Ctor } = instrumentedWebSocket({ alter: (m) => (m.type === 'patch' && m.seq === 2 ? null : m) });
    client = new RacewireClient({ url: h.url, token: PARTNER_KEY, WebSocket: Ctor });
    const resyncs: string[] = [];
    client.on('resync', (_s, reason) => resyncs.push(reason));
    client.subscribe('race:R1');
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    await h.publishDoc('R1', raceDoc('R1', 1));
    await h.clock.advance(5000);
    const head = await headOf('R1');
    await until(() => resyncs.length === 1 && client!.stream('R1')?.syncing === false, 'resync');
    expect(resyncs).toEqual(['behind_head']);
    expect(client.stream('R1')?.seq).toBe(head.seq);
    expect(client.document('R1')).toEqual(head.document);
  });

  it('re-syncs a copy of no known epoch at the first heartbeat, rather than compare seqs only', async () => {
    h = await startHarness({ limits: { heartbeatMs: 5000 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    // The first snapshot arrives without its epoch (as live snapshot entries of a log without one did).
    let stripped = false;
    const { Ctor } = instrumentedWebSocket({
      alter: (m) => {
        if (m.type !== 'snapshot' || stripped) return m;
        stripped = true;
        const { epoch: _, ...rest } = m;
        return rest;
      },
    });
    client = new RacewireClient({ url: h.url, token: PARTNER_KEY, WebSocket: Ctor });
    const resyncs: string[] = [];
    client.on('resync', (_s, reason) => resyncs.push(reason));
    client.subscribe('race:R1');
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    expect(client.stream('R1')?.epoch).toBeUndefined();
    await h.clock.advance(5000);
    const head = await headOf('R1');
    await until(() => resyncs.length === 1 && client!.stream('R1')?.syncing === false, 'resync');
    expect(resyncs).toEqual(['epoch_mismatch']);
    expect(client.stream('R1')?.epoch).toBe(head.epoch);
  });

  it('keeps a projected, conflated copy equal to the projection of the log document', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const { Ctor } = instrumentedWebSocket({});
    client = new RacewireClient({ url: h.url, token: PARTNER_KEY, WebSocket: Ctor });
    const resyncs: string[] = [];
    const events: number[] = [];
    client.on('resync', (_s, reason) => resyncs.push(reason));
    client.on('event', (e) => events.push(e.seq));
    client.subscribe('race:R1', { fields: ['/race/status', '/runners/*/odds'], conflateMs: 1000 });
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    for (let n = 1; n <= 4; n++)
      await h.publishDoc('R1', raceDoc('R1', n), n === 2 ? [{ type: 'odds.changed', data: {} }] : []);
    await h.clock.advance(1000);
    const head = await headOf('R1');
    await until(() => client!.stream('R1')?.seq === head.seq, 'merged patch');
    expect(resyncs).toEqual([]);
    expect(events).toEqual([4]);
    expect(client.document('R1')).toEqual({
      race: { status: 'Open' },
      runners: { E1: { odds: { win: 2.4 } }, E2: { odds: { win: 5.4 } } },
    });
  });

  it('re-syncs from a fresh snapshot when it detects a gap', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    // Lose the patch with seq 3 on the way to the client.
    const { Ctor } = instrumentedWebSocket({ alter: (m) => (m.type === 'patch' && m.seq === 3 ? null : m) });
    client = new RacewireClient({ url: h.url, token: PARTNER_KEY, WebSocket: Ctor });
    const resyncs: string[] = [];
    client.on('resync', (_s, reason) => resyncs.push(reason));
    client.subscribe('race:R1');
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    for (let n = 1; n <= 4; n++) await h.publishDoc('R1', raceDoc('R1', n));
    const head = await headOf('R1');
    await until(() => client!.stream('R1')?.seq === head.seq && !client!.stream('R1')?.syncing, 'resynced');
    expect(resyncs).toEqual(['gap']);
    expect(client.document('R1')).toEqual(head.document);
  });

  it('re-syncs when a patch does not apply, keeping its previous copy intact meanwhile', async () => {
    h = await startHarness();
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const { Ctor } = instrumentedWebSocket({
      alter: (m) =>
        m.type === 'patch' && m.seq === 2 ? { ...m, ops: [{ op: 'remove', path: '/nope' }] } : m,
    });
    client = new RacewireClient({ url: h.url, token: PARTNER_KEY, WebSocket: Ctor });
    const resyncs: string[] = [];
    client.on('resync', (_s, reason) => resyncs.push(reason));
    client.subscribe('race:R1');
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    await h.publishDoc('R1', raceDoc('R1', 1));
    await h.publishDoc('R1', raceDoc('R1', 2));
    await until(() => client!.stream('R1')?.seq === 3 && !client!.stream('R1')?.syncing, 'resynced');
    expect(resyncs).toEqual(['patch_failed']);
    expect(client.document('R1')).toEqual(raceDoc('R1', 2));
  });

  it('starts over from a snapshot when its position fell out of the window while away', async () => {
    h = await startHarness({ logOptions: { window: 2 } });
    addRace(h, 'R1');
    await h.publishDoc('R1', raceDoc('R1', 0));
    const { Ctor, sockets } = instrumentedWebSocket({});
    client = new RacewireClient({
      url: h.url,
      token: PARTNER_KEY,
      WebSocket: Ctor,
      backoff: { baseMs: 200, capMs: 200 },
      random: () => 0.99,
    });
    const resyncs: string[] = [];
    client.on('resync', (_s, reason) => resyncs.push(reason));
    client.subscribe('race:R1');
    client.connect();
    await until(() => client!.document('R1') !== undefined, 'snapshot');
    sockets[0]!.terminate();
    for (let n = 1; n <= 6; n++) await h.publishDoc('R1', raceDoc('R1', n));
    await until(() => client!.stream('R1')?.seq === 7, 'fresh snapshot');
    expect(resyncs).toEqual(['too_old']);
    expect(client.document('R1')).toEqual(raceDoc('R1', 6));
  });
});
