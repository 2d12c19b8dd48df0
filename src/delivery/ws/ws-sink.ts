/**
 * The WebSocket transport's byte mover. Frames are written straight to the TCP socket when the connection
 * negotiated no extension (a header plus the shared payload, several messages in one corked writev); ws
 * writes whole frames synchronously then, so its pings and close frames never interleave inside ours. With
 * an extension (permessage-deflate) messages go through `ws.send`, which frames and compresses them.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { joined, type Outgoing } from '../core/outgoing.js';
import type { Sink } from '../core/sink.js';
import { textFrameHeader } from './frame.js';

/**
 * Frames per message, shared by every connection that writes it: a small message (a patch, an event) as one
 * framed buffer, so a connection writes it with one call; a large one (a snapshot) as its header alone, written
 * before the shared parts.
 */
const frames = new WeakMap<Outgoing, Buffer>();
const SMALL_FRAME = 16 * 1024;

function frameOf(o: Outgoing): Buffer {
  let f = frames.get(o);
  if (!f) {
    const header = textFrameHeader(o.bytes);
    f = o.bytes <= SMALL_FRAME ? Buffer.concat([header, ...o.parts], header.length + o.bytes) : header;
    frames.set(o, f);
  }
  return f;
}

/** Bytes `ws.send` may hold before the sink asks to wait (the socket's own default high-water mark). */
const SEND_HIGH_WATER = 16 * 1024;

export class WebSocketSink implements Sink {
  private readonly raw: Socket | undefined;
  private inflight = 0;
  private drainListeners: Array<() => void> = [];

  constructor(readonly ws: WebSocket) {
    const socket = (ws as unknown as { _socket?: Socket })._socket;
    this.raw = ws.extensions === '' && socket && typeof socket.write === 'function' ? socket : undefined;
  }

  write(batch: readonly Outgoing[]): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return true;
    const raw = this.raw;
    if (raw) {
      if (raw.destroyed) return true;
      const one = batch.length === 1 && batch[0]!.bytes <= SMALL_FRAME;
      if (!one) raw.cork();
      for (const o of batch) {
        const f = frameOf(o);
        raw.write(f);
        if (o.bytes > SMALL_FRAME) for (const part of o.parts) raw.write(part);
      }
      if (!one) raw.uncork();
      return !raw.writableNeedDrain;
    }
    for (const o of batch) {
      this.inflight += o.bytes;
      this.ws.send(joined(o), { binary: false }, () => {
        this.inflight -= o.bytes;
        if (this.inflight < SEND_HIGH_WATER) this.drained();
      });
    }
    return this.inflight < SEND_HIGH_WATER;
  }

  buffered(): number {
    return this.raw ? this.raw.writableLength : this.inflight + this.ws.bufferedAmount;
  }

  onDrain(listener: () => void): void {
    if (this.raw) this.raw.once('drain', listener);
    else this.drainListeners.push(listener);
  }

  private drained() {
    const listeners = this.drainListeners;
    this.drainListeners = [];
    for (const l of listeners) l();
  }

  end(code: number, reason: string): void {
    try {
      this.ws.close(code, reason);
    } catch {
      this.ws.terminate();
    }
  }

  destroy(): void {
    this.ws.terminate();
  }
}
