import { describe, expect, it } from 'vitest';
import { parseChannel } from '../../../src/delivery/core/channels.js';
import { parseClientMessage } from '../../../src/delivery/ws/client-messages.js';

describe('parseClientMessage', () => {
  it('accepts a resume subscription', () => {
    expect(
      parseClientMessage(
        '{"op":"subscribe","channel":"race:R1","from":{"R1":{"seq":3,"epoch":"e"}},"reqId":"1"}',
      ),
    ).toEqual({
      ok: true,
      message: { op: 'subscribe', channel: 'race:R1', from: { R1: { seq: 3, epoch: 'e' } }, reqId: '1' },
    });
  });

  it('names the error of each kind of bad input', () => {
    expect(parseClientMessage('{')).toMatchObject({ ok: false, code: 'bad_json' });
    expect(parseClientMessage('null')).toMatchObject({ ok: false, code: 'bad_request' });
    expect(parseClientMessage('{"op":"__proto__"}')).toMatchObject({ ok: false, code: 'unknown_op' });
    expect(parseClientMessage('{"op":"ping","extra":1}')).toMatchObject({ ok: false, code: 'bad_request' });
    expect(
      parseClientMessage('{"op":"subscribe","channel":"race:R1","from":{"R1":{"seq":1.5,"epoch":"e"}}}'),
    ).toMatchObject({
      ok: false,
      code: 'bad_request',
    });
  });
});

describe('parseChannel', () => {
  it('recognises race, meeting and firehose channels only', () => {
    expect(parseChannel('race:R1')).toEqual({ kind: 'race', raceId: 'R1' });
    expect(parseChannel('meeting:M1')).toEqual({ kind: 'meeting', meetingId: 'M1' });
    expect(parseChannel('firehose')).toEqual({ kind: 'firehose' });
    expect(parseChannel('race:')).toBeUndefined();
    expect(parseChannel('horse:H1')).toBeUndefined();
  });
});
