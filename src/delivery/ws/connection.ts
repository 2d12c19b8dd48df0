/**
 * One subscriber connection: its principal, channels and per-stream positions, and a bounded send path.
 * Frames are written straight to the TCP socket when the ws connection negotiated no extension (so a
 * pre-built frame is valid as is): one serialisation per audience, and frames queued within one
 * event-loop turn leave in one corked write. Queued plus socket-buffered bytes are the send buffer; past
 * `maxBufferedBytes` the client is a slow consumer.
 */
import type { Socket } from 'node:net';
import type { FirehoseFilter } from '@racewire/client/protocol';
import type { WebSocket } from 'ws';
import type { LogEntry, StreamId } from '../../events/envelope.js';
import type { Principal, Scope } from './auth.js';
import type { ParsedChannel } from './client-messages.js';
import type { Outgoing } from './frame.js';
import { outgoing } from './frame.js';

export interface StreamState {
  /** `attaching`: history or a snapshot is being read; live entries wait in `buffer`. */
  phase: 'attaching' | 'live';
  /** Seq of the last entry sent to the client on this stream. */
  lastSeq: number;
  buffer: LogEntry[];
  /** The attach failed (log error): nothing is buffered until the client asks for a resync. */
  failed?: boolean;
  /** Channels that cover this stream; the stream is dropped when the last goes. */
  channels: Set<string>;
}

export type ChannelState = ParsedChannel & { filter?: FirehoseFilter };

export interface SendResult {
  ok: boolean;
  bytes: number;
}

/**
 * What stream attach and fan-out need of a subscriber, whatever carries its bytes: the WebSocket
 * `Connection` below and the Server-Sent Events connection (src/delivery/sse) both provide it.
 */
export interface Subscriber {
  readonly id: string;
  closed: boolean;
  readonly scope: Scope;
  readonly channels: Map<string, ChannelState>;
  readonly streams: Map<StreamId, StreamState>;
  /** Queues a batch in order, or none of it (closed, or over the send buffer: slow consumer). */
  send(batch: readonly Outgoing[]): SendResult;
  /** Serialises and sends one message meant for this subscriber only. */
  sendOne(message: unknown): SendResult;
}

export class Connection implements Subscriber {
  readonly channels = new Map<string, ChannelState>();
  readonly streams = new Map<StreamId, StreamState>();
  /** Set by the ping loop; cleared when a pong arrives. */
  awaitingPong = false;
  closed = false;
  private readonly raw: Socket | undefined;
  private pending: Outgoing[] = [];
  private pendingBytes = 0;

  constructor(
    readonly id: string,
    readonly principal: Principal,
    readonly ws: WebSocket,
    private readonly maxBufferedBytes: number,
    private readonly onSlow: (conn: Connection) => void,
    /** Arranges for `flush()` to run soon (once per event-loop turn for all connections). */
    private readonly schedule: (conn: Connection) => void = (c) => queueMicrotask(() => c.flush()),
  ) {
    // ws keeps the socket private; writing to it is safe because ws writes whole frames synchronously
    // when no extension (permessage-deflate) is active, so our frames never interleave inside one of its.
    const socket = (ws as unknown as { _socket?: Socket })._socket;
    this.raw = ws.extensions === '' && socket && typeof socket.write === 'function' ? socket : undefined;
  }

  get scope(): Scope {
    return this.principal.scope;
  }

  /** Bytes accepted but not yet handed to the kernel. */
  buffered(): number {
    return this.raw ? this.raw.writableLength : this.ws.bufferedAmount;
  }

  /**
   * Queues a batch in order, or none of it when it would overflow the send buffer (then: slow consumer).
   * Queued frames go out on the next flush, in one corked (writev) write per connection.
   */
  send(batch: readonly Outgoing[]): SendResult {
    if (this.closed || batch.length === 0 || this.ws.readyState !== this.ws.OPEN)
      return { ok: false, bytes: 0 };
    let bytes = 0;
    for (const o of batch) bytes += o.frame.length;
    if (this.buffered() + this.pendingBytes + bytes > this.maxBufferedBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.onSlow(this);
      return { ok: false, bytes: 0 };
    }
    if (this.pending.length === 0) this.schedule(this);
    for (const o of batch) this.pending.push(o);
    this.pendingBytes += bytes;
    return { ok: true, bytes };
  }

  /** Writes what is queued; called by the gateway's flush scheduler. */
  flush(): void {
    const batch = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    if (batch.length === 0 || this.ws.readyState !== this.ws.OPEN) return;
    const raw = this.raw;
    if (raw && !raw.destroyed) {
      if (batch.length === 1) raw.write(batch[0]!.frame);
      else {
        raw.cork();
        for (const o of batch) raw.write(o.frame);
        raw.uncork();
      }
    } else {
      for (const o of batch) this.ws.send(o.json);
    }
  }

  /** Serialises and sends one message meant for this connection only. */
  sendOne(message: unknown): SendResult {
    return this.send([outgoing(message)]);
  }
}
