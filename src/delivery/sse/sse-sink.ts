/**
 * The Server-Sent Events transport's byte mover: stream messages become `id:`/`event:`/`data:` blocks (the
 * `data:` line is the shared WebSocket message buffer), heartbeats become `: hb <time>` comments, and a close
 * is a last `event: close` block before the response ends. Messages meant for WebSocket clients only
 * (welcome, pong, errors) are not written. The id holds the position in every stream of the connection.
 */

import type { StreamPosition } from '@racewire/client/protocol';
import type { StreamId } from '../../events/envelope.js';
import type { Outgoing } from '../core/outgoing.js';
import type { Sink } from '../core/sink.js';
import { formatEventId } from './event-id.js';

/** The part of an http.ServerResponse this needs. */
export interface SseResponse {
  write(chunk: string | Buffer): boolean;
  readonly writableLength: number;
  readonly writableNeedDrain: boolean;
  readonly writableEnded: boolean;
  cork(): void;
  uncork(): void;
  once(event: 'drain', listener: () => void): unknown;
  end(): void;
  destroy(): void;
}

const BLOCK_END = Buffer.from('\n\n');

/** The reason words of close codes, as the `close` event states them. */
const REASONS: Record<number, string> = { 1001: 'going_away', 4008: 'slow_consumer' };

export class SseSink implements Sink {
  /** Last position written per stream: what the next event id reports. */
  private readonly positions = new Map<StreamId, StreamPosition>();

  constructor(private readonly res: SseResponse) {}

  write(batch: readonly Outgoing[]): boolean {
    const res = this.res;
    if (res.writableEnded) return true;
    res.cork();
    for (const o of batch) {
      if (o.heartbeat !== undefined) res.write(`: hb ${new Date(o.heartbeat).toISOString()}\n\n`);
      if (!o.meta) continue;
      res.write(`${this.idLine(o.meta.stream, o.meta.seq, o.meta.epoch)}event: ${o.meta.type}\ndata: `);
      for (const part of o.parts) res.write(part);
      res.write(BLOCK_END);
    }
    res.uncork();
    return !res.writableNeedDrain;
  }

  /** Records the position so this id (and every later one) reports it. */
  private idLine(stream: StreamId, seq: number, epoch: string | undefined): string {
    const known = epoch ?? this.positions.get(stream)?.epoch;
    if (known === undefined) return '';
    this.positions.set(stream, { seq, epoch: known });
    return `id: ${formatEventId(stream, this.positions)}\n`;
  }

  buffered(): number {
    return this.res.writableLength;
  }

  onDrain(listener: () => void): void {
    this.res.once('drain', listener);
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
