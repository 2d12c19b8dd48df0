import { afterEach, describe, expect, it } from 'vitest';
import { formatEventId, parseEventId } from '../../../src/delivery/sse/event-id.js';
import { SseConnection } from '../../../src/delivery/sse/sse-connection.js';
import type { SseErrorCode } from '../../../src/delivery/sse/sse-request.js';
import { outgoing } from '../../../src/delivery/ws/frame.js';
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

describe('SseConnection', () => {
  const principal = { name: 'p', scope: 'partner' as const, anonymous: false };

  it('ends itself as a slow consumer instead of buffering past its limit', () => {
    const written: string[] = [];
    const sink = { writableLength: 0, write: (t: string) => written.push(t) > 0 };
    const slow: SseConnection[] = [];
    const conn = new SseConnection('c1', principal, sink, 200, (c) => slow.push(c));
    expect(conn.sendOne({ type: 'snapshot', stream: 'R1', seq: 1, epoch: 'e1', document: null }).ok).toBe(
      true,
    );
    expect(written[0]).toBe(
      'id: R1|e1|1\nevent: snapshot\ndata: {"type":"snapshot","stream":"R1","seq":1,"epoch":"e1","document":null}\n\n',
    );
    sink.writableLength = 190;
    const big = {
      ...outgoing({ type: 'event', stream: 'R1', seq: 2 }),
      entry: { type: 'event' as const, stream: 'R1', seq: 2 },
    };
    expect(conn.send([big])).toEqual({ ok: false, bytes: 0 });
    expect(slow).toEqual([conn]);
    expect(written.length).toBe(1);
  });

  it('writes nothing for WebSocket-only messages', () => {
    const written: string[] = [];
    const conn = new SseConnection(
      'c1',
      principal,
      { writableLength: 0, write: (t) => written.push(t) > 0 },
      1e6,
      () => {},
    );
    conn.sendOne({ type: 'subscribed', channel: 'race:R1', streams: ['R1'] });
    conn.sendOne({ type: 'error', code: 'internal', message: 'x' });
    expect(written).toEqual([]);
  });
});

describe('GET /v1/sse refusals', () => {
  let h: SseHarness;
  afterEach(async () => h?.close());

  const cases: Array<[string, Record<string, string>, number, string]> = [
    ['', {}, 400, 'missing_channel'],
    [Array.from({ length: 21 }, (_, i) => `channel=race:R${i}`).join('&'), {}, 400, 'too_many_channels'],
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
    expect(params.sort()).toEqual(['channel', 'lastEventId', 'token']);
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
    };
    for (const code of Object.keys(codes)) expect(section).toContain(`\`${code}\``);
  });
});
