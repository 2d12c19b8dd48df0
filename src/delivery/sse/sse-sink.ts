/**
 * The Server-Sent Events transport's byte mover: stream messages become `id:`/`event:`/`data:` blocks (the
 * `data:` line is the shared WebSocket message buffer), heartbeats become `: hb <time>` comments, and a close
 * is a last `event: close` block before the response ends. Messages meant for WebSocket clients only
 * (welcome, pong, errors) are not written. The id holds the position in every stream of the connection.
 *
 * A small message to a connection that follows one stream has the same block for every such connection: it
 * is built once (with its HTTP chunk framing) and shared, and written to the socket with one call. Connections
 * following several streams build their id themselves; large messages (snapshots) write the shared parts.
 */

import type { Socket } from 'node:net';
import type { StreamPosition } from '@racewire/client/protocol';
import type { StreamId } from '../../events/envelope.js';
import type { Outgoing, StreamMeta } from '../core/outgoing.js';
import type { Sink } from '../core/sink.js';
import { formatEventId } from './event-id.js';

/** The part of an http.ServerResponse this needs. */
export interface SseResponse {
  write(chunk: string | Buffer): boolean;
  readonly writableLength: number;
  readonly writableNeedDrain: boolean;
  readonly writableEnded: boolean;
  readonly headersSent?: boolean;
  /** Node's own flag: the response frames its body in HTTP chunks. */
  readonly chunkedEncoding?: boolean;
  readonly socket?: Socket | null;
  cork(): void;
  uncork(): void;
  once(event: 'drain', listener: () => void): unknown;
  end(): void;
  destroy(): void;
}

const BLOCK_END = Buffer.from('\n\n');
const CRLF = '\r\n';
const CHUNK_END = Buffer.from('\n\n\r\n');
/** Messages up to this size are framed whole, once (as WebSocket frames them). */
const SMALL_BLOCK = 16 * 1024;

/** The reason words of close codes, as the `close` event states them. */
const REASONS: Record<number, string> = { 1001: 'going_away', 4008: 'slow_consumer' };

/** A message's block for one-stream connections at one epoch, bare and as an HTTP chunk. */
interface SharedBlock {
  epoch: string | undefined;
  block: Buffer;
  chunk: Buffer;
}

const sharedBlocks = new WeakMap<Outgoing, SharedBlock>();

function blockHead(idLine: string, meta: StreamMeta): Buffer {
  return Buffer.from(`${idLine}event: ${meta.type}\ndata: `, 'utf8');
}

function block(idLine: string, meta: StreamMeta, o: Outgoing): Buffer {
  const head = blockHead(idLine, meta);
  return Buffer.concat([head, ...o.parts, BLOCK_END], head.length + o.bytes + BLOCK_END.length);
}

/** The block as one HTTP chunk, built in one copy (a connection's own id: built per connection). */
function chunkedBlock(idLine: string, meta: StreamMeta, o: Outgoing): Buffer {
  const head = blockHead(idLine, meta);
  const length = head.length + o.bytes + BLOCK_END.length;
  const size = Buffer.from(`${length.toString(16)}${CRLF}`, 'latin1');
  return Buffer.concat([size, head, ...o.parts, CHUNK_END], size.length + length + CRLF.length);
}

function chunkOf(b: Buffer): Buffer {
  const size = Buffer.from(`${b.length.toString(16)}${CRLF}`, 'latin1');
  return Buffer.concat([size, b, Buffer.from(CRLF)], size.length + b.length + 2);
}

export class SseSink implements Sink {
  /** Last position written per stream: what the next event id reports. */
  private readonly positions = new Map<StreamId, StreamPosition>();
  /** The socket, once the response's headers are out and its body is chunked: blocks go straight to it. */
  private raw: Socket | undefined;

  constructor(private readonly res: SseResponse) {}

  write(batch: readonly Outgoing[]): boolean {
    const res = this.res;
    if (res.writableEnded) return true;
    const raw = this.raw ?? this.rawSocket();
    const one = batch.length === 1;
    if (!one) (raw ?? res).cork();
    for (const o of batch) {
      if (o.heartbeat !== undefined) this.writeText(raw, `: hb ${new Date(o.heartbeat).toISOString()}\n\n`);
      if (o.meta) this.writeMessage(raw, o, o.meta);
    }
    if (!one) (raw ?? res).uncork();
    return raw ? !raw.writableNeedDrain : !res.writableNeedDrain;
  }

  /**
   * The socket under the response, when blocks may bypass the response: its headers were sent, its body is
   * chunked and nothing of it is held back. Anything else (a test's fake, HTTP/1.0) writes through it.
   */
  private rawSocket(): Socket | undefined {
    const res = this.res;
    const socket = res.socket;
    if (!socket || !res.headersSent || !res.chunkedEncoding || res.writableLength !== socket.writableLength)
      return undefined;
    this.raw = socket;
    return socket;
  }

  private writeText(raw: Socket | undefined, text: string) {
    if (raw) raw.write(chunkOf(Buffer.from(text, 'utf8')));
    else this.res.write(text);
  }

  private writeMessage(raw: Socket | undefined, o: Outgoing, meta: StreamMeta) {
    const known = meta.epoch ?? this.positions.get(meta.stream)?.epoch;
    if (known !== undefined) this.remember(meta.stream, meta.seq, known);
    // Without an epoch there is no id line; with one, a connection that knows only this stream has the id
    // of every such connection.
    const alone = known === undefined || this.positions.size === 1;
    if (o.bytes <= SMALL_BLOCK && alone) {
      const shared = this.sharedBlock(o, meta, known);
      if (raw) raw.write(shared.chunk);
      else this.res.write(shared.block);
      return;
    }
    const idLine = known === undefined ? '' : `id: ${formatEventId(meta.stream, this.positions)}\n`;
    if (o.bytes <= SMALL_BLOCK) {
      if (raw) raw.write(chunkedBlock(idLine, meta, o));
      else this.res.write(block(idLine, meta, o));
      return;
    }
    // A large message: its shared parts, never copied.
    const head = blockHead(idLine, meta);
    const w = raw ?? this.res;
    if (raw) raw.write(`${(head.length + o.bytes + BLOCK_END.length).toString(16)}${CRLF}`);
    w.write(head);
    for (const part of o.parts) w.write(part);
    w.write(raw ? CHUNK_END : BLOCK_END);
  }

  private sharedBlock(o: Outgoing, meta: StreamMeta, epoch: string | undefined): SharedBlock {
    let shared = sharedBlocks.get(o);
    if (!shared || shared.epoch !== epoch) {
      const idLine = epoch === undefined ? '' : `id: ${formatEventId(meta.stream, this.positions)}\n`;
      const b = block(idLine, meta, o);
      shared = { epoch, block: b, chunk: chunkOf(b) };
      sharedBlocks.set(o, shared);
    }
    return shared;
  }

  /** Records the position so this id (and every later one) reports it. */
  private remember(stream: StreamId, seq: number, epoch: string) {
    const p = this.positions.get(stream);
    if (p && p.epoch === epoch) p.seq = seq;
    else this.positions.set(stream, { seq, epoch });
  }

  buffered(): number {
    return this.res.writableLength;
  }

  onDrain(listener: () => void): void {
    if (this.raw) this.raw.once('drain', listener);
    else this.res.once('drain', listener);
  }

  end(code: number, reason: string): void {
    if (this.res.writableEnded) return;
    const data = JSON.stringify({ type: 'close', code, reason: REASONS[code] ?? 'closed', message: reason });
    this.res.write(`event: close\ndata: ${data}\n\n`);
    this.res.end();
  }

  destroy(): void {
    this.res.destroy();
  }
}
