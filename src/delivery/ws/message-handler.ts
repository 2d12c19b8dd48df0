/**
 * One client message: rate and size checks, strict parsing, then subscribe / unsubscribe / resync / ping
 * through the subscription core. Every refusal is an `error` message with a code; the connection stays open.
 */

import type { ClientMessage, ErrorCode, ErrorMessage } from '@racewire/client/protocol';
import type { RawData } from 'ws';
import { parseChannel } from '../core/channels.js';
import type { DeliveryHub } from '../core/hub.js';
import { outgoing } from '../core/outgoing.js';
import type { Session } from '../core/session.js';
import { parseStreamOptions } from '../core/stream-options.js';
import { parseClientMessage } from './client-messages.js';

export interface HandlerDeps {
  hub: DeliveryHub;
  session: Session;
  maxMessageBytes: number;
  stats: { clientErrors: number };
}

function rawLength(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((n, b) => n + b.length, 0);
  return data instanceof ArrayBuffer ? data.byteLength : data.length;
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

type Fail = (code: ErrorCode, message: string, reqId?: string) => void;

export function handleMessage(deps: HandlerDeps, data: RawData, isBinary: boolean) {
  const { session, hub } = deps;
  if (session.closed) return;
  const fail: Fail = (code, message, reqId) => {
    deps.stats.clientErrors++;
    const err: ErrorMessage = { type: 'error', code, message };
    if (reqId !== undefined) err.reqId = reqId;
    session.sendOne(outgoing(err));
  };
  if (!hub.take(session)) return fail('rate_limited', 'too many messages; slow down');
  if (isBinary) return fail('bad_request', 'binary frames are not accepted; send JSON text');
  const size = rawLength(data);
  if (size > deps.maxMessageBytes) {
    return fail('message_too_large', `message of ${size} bytes exceeds ${deps.maxMessageBytes}`);
  }
  const parsed = parseClientMessage(rawText(data));
  if (!parsed.ok) return fail(parsed.code, parsed.message, parsed.reqId);
  const msg = parsed.message;
  if (msg.op === 'ping') return dispatch(deps, msg, fail);
  // Subscription work waits its turn, so a storm of subscribes never holds up another client's ping.
  hub.defer(() => {
    if (!session.closed) dispatch(deps, msg, fail);
  });
}

function dispatch(deps: HandlerDeps, msg: ClientMessage, fail: Fail) {
  const { session, hub } = deps;
  const reply = (m: object) => session.sendOne(outgoing(m));
  switch (msg.op) {
    case 'ping':
      reply({ type: 'pong', time: hub.wall.now(), ...(msg.reqId ? { reqId: msg.reqId } : {}) });
      return;
    case 'subscribe': {
      const ch = parseChannel(msg.channel);
      if (!ch)
        return fail('unknown_channel', 'channel must be race:<id>, meeting:<id> or firehose', msg.reqId);
      const options = parseStreamOptions(msg);
      if (!options.ok) return fail('bad_request', options.message, msg.reqId);
      if (ch.kind === 'firehose' && (msg.fields || msg.conflateMs !== undefined))
        return fail('bad_request', 'fields and conflateMs apply to race and meeting channels', msg.reqId);
      if (ch.kind !== 'firehose' && msg.filter)
        return fail('bad_request', 'filter applies to the firehose only', msg.reqId);
      const admitted = hub.admitChannel(session, msg.channel);
      if (!admitted.ok) return fail(admitted.code as ErrorCode, admitted.message, msg.reqId);
      if (ch.kind === 'firehose') {
        hub.subscribeFirehose(session, msg.channel, { ...ch, filter: msg.filter });
        reply({ type: 'subscribed', channel: msg.channel, streams: [], reqId: msg.reqId });
        return;
      }
      hub.subscribe(session, {
        channel: msg.channel,
        ch,
        options: options.options,
        from: msg.from,
        announce: (streams) => reply({ type: 'subscribed', channel: msg.channel, streams, reqId: msg.reqId }),
      });
      return;
    }
    case 'unsubscribe':
      if (!hub.unsubscribe(session, msg.channel))
        return fail('not_subscribed', `not subscribed to ${msg.channel}`, msg.reqId);
      reply({ type: 'unsubscribed', channel: msg.channel, reqId: msg.reqId });
      return;
    case 'resync':
      if (!hub.resync(session, msg.stream))
        return fail('not_subscribed', `not subscribed to stream ${msg.stream}`, msg.reqId);
      return;
  }
}
