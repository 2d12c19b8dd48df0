/**
 * One Server-Sent Events subscriber. It plugs into the WebSocket gateway's stream attach and fan-out as a
 * `Subscriber`: the same per-audience messages arrive, already serialised, and are written as
 * `id:`/`event:`/`data:` blocks. The response's buffered bytes are the send buffer; past
 * `maxBufferedBytes` the subscriber is slow and `onSlow` ends it (the client resumes with Last-Event-ID).
 */

import type { StreamPosition } from '@racewire/client/protocol';
import type { StreamId } from '../../events/envelope.js';
import type { Principal, Scope } from '../ws/auth.js';
import type { ChannelState, SendResult, StreamState, Subscriber } from '../ws/connection.js';
import type { Outgoing } from '../ws/frame.js';
import { formatEventId } from './event-id.js';

/** The part of an http.ServerResponse this needs (a fake in unit tests). */
export interface SseSink {
  write(chunk: string): boolean;
  readonly writableLength: number;
}

/** Messages written as SSE events; anything else sent through `sendOne` is WebSocket-only. */
const STREAM_TYPES = new Set(['snapshot', 'patch', 'event', 'resumed']);

export class SseConnection implements Subscriber {
  readonly channels = new Map<string, ChannelState>();
  readonly streams = new Map<StreamId, StreamState>();
  closed = false;
  /** Last position written per stream: what the next event id reports. */
  private readonly positions = new Map<StreamId, StreamPosition>();

  constructor(
    readonly id: string,
    readonly principal: Principal,
    private readonly sink: SseSink,
    private readonly maxBufferedBytes: number,
    private readonly onSlow: (conn: SseConnection) => void,
  ) {}

  get scope(): Scope {
    return this.principal.scope;
  }

  buffered(): number {
    return this.sink.writableLength;
  }

  send(batch: readonly Outgoing[]): SendResult {
    if (this.closed || batch.length === 0) return { ok: false, bytes: 0 };
    let text = '';
    for (const o of batch) {
      if (o.entry) text += this.block(o.entry.type, o.entry.stream, o.entry.seq, undefined, o.json);
    }
    return this.write(text);
  }

  sendOne(message: unknown): SendResult {
    if (this.closed) return { ok: false, bytes: 0 };
    const m = message as { type?: string; stream?: string; seq?: number; fromSeq?: number; epoch?: string };
    if (!m.type || !STREAM_TYPES.has(m.type) || typeof m.stream !== 'string') return { ok: true, bytes: 0 };
    const seq = m.type === 'resumed' ? m.fromSeq : m.seq;
    if (typeof seq !== 'number') return { ok: true, bytes: 0 };
    return this.write(this.block(m.type, m.stream, seq, m.epoch, JSON.stringify(message)));
  }

  /** Writes an SSE comment (heartbeats); ignored by EventSource, visible to curl. */
  comment(text: string): SendResult {
    if (this.closed) return { ok: false, bytes: 0 };
    return this.write(`: ${text}\n\n`);
  }

  /** One event block; records the position so the id (and every later one) reports it. */
  private block(
    type: string,
    stream: StreamId,
    seq: number,
    epoch: string | undefined,
    json: string,
  ): string {
    const known = epoch ?? this.positions.get(stream)?.epoch;
    let id = '';
    if (known !== undefined) {
      this.positions.set(stream, { seq, epoch: known });
      id = `id: ${formatEventId(stream, this.positions)}\n`;
    }
    return `${id}event: ${type}\ndata: ${json}\n\n`;
  }

  private write(text: string): SendResult {
    if (text.length === 0) return { ok: true, bytes: 0 };
    const bytes = Buffer.byteLength(text);
    if (this.sink.writableLength + bytes > this.maxBufferedBytes) {
      this.onSlow(this);
      return { ok: false, bytes: 0 };
    }
    this.sink.write(text);
    return { ok: true, bytes };
  }
}
