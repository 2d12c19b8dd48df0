import { afterEach, describe, expect, it } from 'vitest';
import { outgoing } from '../../../src/delivery/core/outgoing.js';
import { formatEventId, parseEventId } from '../../../src/delivery/sse/event-id.js';
import type { SseErrorCode } from '../../../src/delivery/sse/sse-request.js';
import { SseSink } from '../../../src/delivery/sse/sse-sink.js';
import { type SseHarness, startSse } from './harness.js';

describe('SSE event ids', () => {
  it('lists the message stream first, then every other position, and parses back', () => {
    const positions = new Map([
      ['meeting:M1', { seq: 4, epoch: 'e1' }],
      ['R1', { seq: 12, epoch: 'e1' }],
    ]);
    const id = formatEventId('R1', positions);
    expect(id).toBe('R1|e1|12,meeting:M1|e1|4');
    expect(parseEventId(id)).toEqual({
      ok: true,
      positions: { R1: { seq: 12, epoch: 'e1' }, 'meeting:M1': { seq: 4, epoch: 'e1' } },
    });
  });

  it('escapes separators inside stream ids and epochs', () => {
    const id = formatEventId('a|b,c%', new Map([['a|b,c%', { seq: 1, epoch: 'x,y' }]]));
    expect(id).toBe('a%7Cb%2Cc%25|x%2Cy|1');
    expect(parseEventId(id)).toEqual({ ok: true, positions: { 'a|b,c%': { seq: 1, epoch: 'x,y' } } });
  });

  it('rejects malformed ids with the position at fault', () => {
    expect(parseEventId('R1|e1')).toEqual({
      ok: false,
      message: 'position 1: expected <stream>|<epoch>|<seq>',
    });
    expect(parseEventId('R1|e1|1,R2|e1|-3')).toEqual({
      ok: false,
      message: 'position 2: seq must be a non-negative integer',
    });
    expect(parseEventId('R1||1')).toEqual({
      ok: false,
      message: 'position 1: epoch must be 1-128 characters',
    });
    expect(parseEventId('')).toEqual({ ok: true, positions: {} });
  });
});

describe('SseSink', () => {
  function response() {
    const written: string[] = [];
    const res = {
      writableLength: 0,
      writableNeedDrain: false,
      writableEnded: false,
      write: (t: string | Buffer) => written.push(String(t)) > 0,
      cork() {},
      uncork() {},
      once: () => res,
      end() {
        res.writableEnded = true;
      },
      destroy() {},
    };
    return { res, text: () => written.join('') };
  }

  it('writes stream messages as id/event/data blocks and remembers every stream position', () => {
    const { res, text } = response();
    const sink = new SseSink(res);
    const snap = { type: 'snapshot', stream: 'R1', seq: 1, epoch: 'e1' } as const;
    sink.write([outgoing({ ...snap, document: null }, snap)]);
    sink.write([outgoing({ type: 'event', stream: 'R2', seq: 4 }, { type: 'event', stream: 'R2', seq: 4 })]);
    expect(text()).toBe(
      'id: R1|e1|1\nevent: snapshot\ndata: {"type":"snapshot","stream":"R1","seq":1,"epoch":"e1","document":null}\n\n' +
        'event: event\ndata: {"type":"event","stream":"R2","seq":4}\n\n',
    );
  });

  it('writes nothing for WebSocket-only messages, heartbeats as comments, and a close event before the end', () => {
    const { res, text } = response();
    const sink = new SseSink(res);
    sink.write([outgoing({ type: 'subscribed', channel: 'race:R1', streams: ['R1'] })]);
    sink.write([outgoing({ type: 'error', code: 'internal', message: 'x' })]);
    sink.write([{ ...outgoing({ type: 'heartbeat' }), heartbeat: Date.parse('2026-11-22T10:00:01Z') }]);
    sink.end(4008, 'slow consumer: reconnect and resume');
    expect(text()).toBe(
      ': hb 2026-11-22T10:00:01.000Z\n\n' +
        'event: close\ndata: {"type":"close","code":4008,"reason":"slow_consumer","message":"slow consumer: reconnect and resume"}\n\n',
    );
    expect(res.writableEnded).toBe(true);
  });
});

describe('SseSink shared blocks', () => {
  function chunks() {
    const written: Array<string | Buffer> = [];
    const res = {
      writableLength: 0,
      writableNeedDrain: false,
      writableEnded: false,
      write: (t: string | Buffer) => written.push(t) > 0,
      cork() {},
      uncork() {},
      once: () => res,
      end() {},
      destroy() {},
    };
    return { res, written };
  }

  it('builds a small message once for every connection that follows only its stream', () => {
    const [a, b, c] = [chunks(), chunks(), chunks()];
    const snap = (stream: string) => ({ type: 'snapshot', stream, seq: 1, epoch: 'e1' }) as const;
    const sinks = [a, b, c].map((x) => new SseSink(x.res));
    sinks[2]!.write([outgoing(snap('R2'), snap('R2'))]);
    for (const s of sinks) s.write([outgoing(snap('R1'), snap('R1'))]);
    for (const x of [a, b, c]) x.written.length = 0;
    const patch = outgoing({ type: 'patch', seq: 2 }, { type: 'patch', stream: 'R1', seq: 2 });
    for (const s of sinks) s.write([patch]);
    expect(a.written).toHaveLength(1);
    expect(a.written[0]).toBe(b.written[0]); // the same buffer
    expect(String(a.written[0])).toBe('id: R1|e1|2\nevent: patch\ndata: {"type":"patch","seq":2}\n\n');
    // c follows R1 and R2: its id carries both, so its block is its own.
    expect(String(c.written[0])).toBe(
      'id: R1|e1|2,R2|e1|1\nevent: patch\ndata: {"type":"patch","seq":2}\n\n',
    );
  });
});

describe('GET /v1/sse refusals', () => {
  let h: SseHarness;
  afterEach(async () => h?.close());

  const cases: Array<[string, Record<string, string>, number, string]> = [
    ['', {}, 400, 'missing_channel'],
    [Array.from({ length: 201 }, (_, i) => `channel=race:R${i}`).join('&'), {}, 400, 'too_many_channels'],
    ['channel=firehose', {}, 400, 'unknown_channel'],
    ['channel=R1', {}, 400, 'unknown_channel'],
    ['channel=race:R1', { 'last-event-id': 'garbage' }, 400, 'bad_last_event_id'],
    ['channel=race:R1&lastEventId=R1|e1|x', {}, 400, 'bad_last_event_id'],
    [`channel=race:${'x'.repeat(200)}`, {}, 400, 'bad_request'],
    ['channel=race:R1', { authorization: 'Bearer wrong' }, 401, 'unauthorized'],
  ];

  it.each(cases)('answers ?%s %j with %i %s', async (query, headers, status, code) => {
    h = await startSse({ listen: false });
    const res = await h.app.inject({ method: 'GET', url: `/v1/sse?${query}`, headers });
    expect(res.statusCode).toBe(status);
    expect(res.json()).toEqual({ error: { code, message: expect.any(String) } });
  });

  it('is described in the OpenAPI document with its query parameters', async () => {
    h = await startSse({ listen: false });
    const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const params = doc.paths['/v1/sse'].get.parameters.map((p: { name: string }) => p.name);
    expect(params.sort()).toEqual(['channel', 'conflateMs', 'fields', 'lastEventId', 'token']);
  });
});

describe('docs/protocol.md', () => {
  it('documents every SSE refusal code', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(new URL('../../../docs/protocol.md', import.meta.url), 'utf8');
    const section = text.slice(text.indexOf('## Server-Sent Events'));
    // A Record, so a new code fails to compile here until it is listed (and then documented).
    const codes: Record<SseErrorCode, true> = {
      missing_channel: true,
      too_many_channels: true,
      unknown_channel: true,
      bad_last_event_id: true,
      bad_request: true,
      unauthorized: true,
      too_many_connections: true,
      too_many_subscriptions: true,
      rate_limited: true,
    };
    for (const code of Object.keys(codes)) expect(section).toContain(`\`${code}\``);
  });
});
