/**
 * The WebSocket wire protocol (docs/protocol.md), whose messages are also the data of Server-Sent Events:
 * the SDK owns it and the gateway imports it (`@racewire/client/protocol`), so the protocol has one source.
 * Types plus a few constants; no dependencies at run time.
 */
import type { Operation } from 'fast-json-patch';
import type { RaceEvent, StreamId } from './envelope.js';

/** What the server's welcome says it sends (docs/protocol.md#versions). */
export const PROTOCOL_VERSION = 3;
/** Subprotocol the server selects; a client may also offer `token.<api key>` beside it. */
export const SUBPROTOCOL = 'racewire.v1';

/** A position in one stream, as the client last saw it. */
export interface StreamPosition {
  seq: number;
  epoch: string;
}

/** `race:<raceId>`, `meeting:<meetingId>` or `firehose`. */
export type Channel = string;

export interface FirehoseFilter {
  /** Country codes (AUS, NZ, ...); any when absent. */
  countries?: string[];
  /** Racing codes T, H, G; any when absent. */
  codes?: string[];
  /** Event types (`odds.changed`, ...) or families (`market.*`); any when absent. */
  types?: string[];
}

// Client -> server.
export type ClientMessage =
  | {
      op: 'subscribe';
      channel: Channel;
      /** Last positions per stream, to resume instead of starting from a snapshot. */
      from?: Record<StreamId, StreamPosition>;
      filter?: FirehoseFilter;
      /** Only these paths of race documents (JSON Pointers; `*` matches any member or list index). */
      fields?: string[];
      /** At most one merged patch per stream per this many ms (100-60000); messages then carry `prevSeq`. */
      conflateMs?: number;
      reqId?: string;
    }
  | { op: 'unsubscribe'; channel: Channel; reqId?: string }
  /** Asks for a fresh snapshot of a subscribed stream (after a failed patch or a gap). */
  | { op: 'resync'; stream: StreamId; reqId?: string }
  | { op: 'ping'; reqId?: string };

// Server -> client.
export interface WelcomeMessage {
  type: 'welcome';
  protocol: number;
  connectionId: string;
  scope: 'public' | 'partner';
  heartbeatMs: number;
  limits: { maxMessageBytes: number; messagesPerSecond: number; maxSubscriptions: number };
}

export interface SubscribedMessage {
  type: 'subscribed';
  channel: Channel;
  /** Streams this subscription covers now (a meeting's races can grow later). */
  streams: StreamId[];
  reqId?: string;
}

export interface UnsubscribedMessage {
  type: 'unsubscribed';
  channel: Channel;
  reqId?: string;
}

/** The whole document of a stream at `documentSeq`, and the stream's position `seq` (>= documentSeq). */
export interface SnapshotMessage {
  type: 'snapshot';
  stream: StreamId;
  seq: number;
  documentSeq: number;
  /** Present on the first snapshot of an attach (subscribe, resync, failed resume). */
  epoch?: string;
  /** null for streams without a document (meeting streams, races not fetched yet). */
  document: unknown;
  /** false when the client asked to resume and could not; `reason` says why. */
  resumed?: false;
  reason?: 'too_old' | 'epoch_mismatch' | 'resync';
}

/** The client's resume position was good: what it missed follows, then live entries. */
export interface ResumedMessage {
  type: 'resumed';
  stream: StreamId;
  epoch: string;
  /** The client's seq; the next message of this stream has seq fromSeq + 1 (or none yet). */
  fromSeq: number;
}

export interface PatchMessage {
  type: 'patch';
  stream: StreamId;
  seq: number;
  /** The documentSeq the patch applies to. */
  base: number;
  ops: Operation[];
  timestamp: string;
  /** Conflated subscriptions: the seq of the stream's previous message (seqs between were merged). */
  prevSeq?: number;
}

export interface EventMessage {
  type: 'event';
  stream: StreamId;
  seq: number;
  event: RaceEvent;
  /** Conflated subscriptions: the seq of the stream's previous message. */
  prevSeq?: number;
}

export interface HeartbeatMessage {
  type: 'heartbeat';
  /** Server wall-clock time, ms since the epoch (race time, which the simulator may speed up, is in /v1/ops). */
  time: number;
  /**
   * Per live stream: its head seq and epoch (every entry up to `seq` was sent before this heartbeat: a copy
   * behind it lost something and should resync) and, for races, ms since the data was last fetched.
   */
  streams: Record<StreamId, { seq: number; epoch: string; staleMs: number | null }>;
}

export interface PongMessage {
  type: 'pong';
  time: number;
  reqId?: string;
}

export type ErrorCode =
  | 'bad_json'
  | 'message_too_large'
  | 'unknown_op'
  | 'bad_request'
  | 'unknown_channel'
  | 'not_subscribed'
  | 'too_many_subscriptions'
  | 'rate_limited'
  | 'internal';

export interface ErrorMessage {
  type: 'error';
  code: ErrorCode;
  message: string;
  reqId?: string;
}

export type ServerMessage =
  | WelcomeMessage
  | SubscribedMessage
  | UnsubscribedMessage
  | SnapshotMessage
  | ResumedMessage
  | PatchMessage
  | EventMessage
  | HeartbeatMessage
  | PongMessage
  | ErrorMessage;

/**
 * Close codes. 4000-4499: reconnect (with back-off) and resume from your positions; 4500-4999: do not
 * reconnect until something is fixed (credentials, client code).
 */
export const CloseCode = {
  /** Server shutting down or restarting: reconnect and resume. */
  GoingAway: 1001,
  /** Frame above the hard size limit: the ws layer closes. Fix the client. */
  TooBig: 1009,
  /** The connection owed too much for too long because the client read too slowly: reconnect and resume. */
  SlowConsumer: 4008,
  /** Too many connections for this key, or messages far above the rate: reconnect later. */
  RateLimited: 4029,
  /** Missing or unknown API key. */
  Unauthorized: 4501,
} as const;

/** Whether a client should reconnect after a close with this code. */
export function shouldReconnect(code: number): boolean {
  if (code >= 4500 && code <= 4999) return false;
  return code !== 1000 && code !== 1008 && code !== CloseCode.TooBig;
}
