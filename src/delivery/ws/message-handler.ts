/**
 * One client message: size and rate checks, strict parsing, then subscribe / unsubscribe / resync / ping.
 * Every refusal is an `error` message with a code; the connection stays open.
 */

import type { ClientMessage, ErrorCode, ErrorMessage } from '@racewire/client/protocol';
import type { RawData } from 'ws';
import type { TokenBucket } from './auth.js';
import type { RaceCatalog } from './catalog.js';
import { parseChannel, parseClientMessage } from './client-messages.js';
import type { Connection } from './connection.js';
import { attachStream, subscribeChannel } from './fanout.js';
import type { Registry } from './registry.js';
import type { AttachDeps } from './stream-attach.js';

export interface HandlerDeps {
  conn: Connection;
  limits: { maxMessageBytes: number; maxSubscriptions: number };
  catalog: RaceCatalog;
  registry: Registry;
  attach: AttachDeps;
  bucket: TokenBucket;
  now: () => number;
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

export function handleMessage(deps: HandlerDeps, data: RawData, isBinary: boolean) {
  const { conn } = deps;
  if (conn.closed) return;
  const fail = (code: ErrorCode, message: string, reqId?: string) => {
    deps.stats.clientErrors++;
    const err: ErrorMessage = { type: 'error', code, message };
    if (reqId !== undefined) err.reqId = reqId;
    conn.sendOne(err);
  };
  if (!deps.bucket.take()) return fail('rate_limited', 'too many messages; slow down');
  if (isBinary) return fail('bad_request', 'binary frames are not accepted; send JSON text');
  const size = rawLength(data);
  if (size > deps.limits.maxMessageBytes) {
    return fail('message_too_large', `message of ${size} bytes exceeds ${deps.limits.maxMessageBytes}`);
  }
  const parsed = parseClientMessage(rawText(data));
  if (!parsed.ok) return fail(parsed.code, parsed.message, parsed.reqId);
  dispatch(deps, parsed.message, fail);
}

type Fail = (code: ErrorCode, message: string, reqId?: string) => void;

function dispatch(deps: HandlerDeps, msg: ClientMessage, fail: Fail) {
  const { conn, registry } = deps;
  switch (msg.op) {
    case 'ping':
      conn.sendOne({ type: 'pong', time: deps.now(), ...(msg.reqId ? { reqId: msg.reqId } : {}) });
      return;
    case 'subscribe': {
      const ch = parseChannel(msg.channel);
      if (!ch)
        return fail('unknown_channel', 'channel must be race:<id>, meeting:<id> or firehose', msg.reqId);
      if (!conn.channels.has(msg.channel) && conn.channels.size >= deps.limits.maxSubscriptions) {
        return fail('too_many_subscriptions', `at most ${deps.limits.maxSubscriptions} channels`, msg.reqId);
      }
      if (ch.kind === 'firehose') {
        conn.channels.set(msg.channel, { ...ch, filter: msg.filter });
        registry.firehose.add(conn);
        conn.sendOne({ type: 'subscribed', channel: msg.channel, streams: [], reqId: msg.reqId });
        return;
      }
      if (msg.filter) return fail('bad_request', 'filter applies to the firehose only', msg.reqId);
      subscribeChannel(deps, conn, msg.channel, ch, msg.from, (streams) =>
        conn.sendOne({ type: 'subscribed', channel: msg.channel, streams, reqId: msg.reqId }),
      );
      return;
    }
    case 'unsubscribe': {
      const ch = conn.channels.get(msg.channel);
      if (!ch) return fail('not_subscribed', `not subscribed to ${msg.channel}`, msg.reqId);
      conn.channels.delete(msg.channel);
      if (ch.kind === 'firehose') registry.firehose.delete(conn);
      if (ch.kind === 'meeting') registry.removeMeeting(conn, ch.meetingId);
      for (const [stream, state] of [...conn.streams]) {
        state.channels.delete(msg.channel);
        if (state.channels.size === 0) registry.removeStream(conn, stream);
      }
      conn.sendOne({ type: 'unsubscribed', channel: msg.channel, reqId: msg.reqId });
      return;
    }
    case 'resync': {
      const state = conn.streams.get(msg.stream);
      if (!state) return fail('not_subscribed', `not subscribed to stream ${msg.stream}`, msg.reqId);
      const channel = [...state.channels][0]!;
      attachStream(deps, conn, msg.stream, channel, undefined, 'resync');
      return;
    }
  }
}
