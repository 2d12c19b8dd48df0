/**
 * SSE event ids carry the subscriber's position in every stream it follows, so the single
 * `Last-Event-ID` a client (or a browser's EventSource) sends on reconnect resumes all of them:
 * `<stream>|<epoch>|<seq>` per stream, comma-separated, the message's own stream first. `%`, `|` and `,`
 * inside a stream id or epoch are percent-escaped.
 */

import type { StreamPosition } from '@racewire/client/protocol';
import type { StreamId } from '../../events/envelope.js';

/** Most positions accepted in one Last-Event-ID (as many as a WebSocket `from`). */
export const MAX_POSITIONS = 256;

const escapePart = (s: string) => s.replace(/[%|,]/g, (c) => (c === '%' ? '%25' : c === '|' ? '%7C' : '%2C'));
const unescapePart = (s: string) =>
  s.replace(/%(25|7C|2C)/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** The id of a message of `first`: every known position, `first`'s leading. */
export function formatEventId(first: StreamId, positions: ReadonlyMap<StreamId, StreamPosition>): string {
  const own = positions.get(first);
  const parts: string[] = own ? [`${escapePart(first)}|${escapePart(own.epoch)}|${own.seq}`] : [];
  for (const [stream, p] of positions) {
    if (stream !== first) parts.push(`${escapePart(stream)}|${escapePart(p.epoch)}|${p.seq}`);
  }
  return parts.join(',');
}

export type ParsedEventId =
  | { ok: true; positions: Record<StreamId, StreamPosition> }
  | { ok: false; message: string };

/** Parses a Last-Event-ID strictly; an empty one means no position. */
export function parseEventId(text: string): ParsedEventId {
  const positions: Record<StreamId, StreamPosition> = Object.create(null);
  if (text.trim() === '') return { ok: true, positions };
  const parts = text.split(',');
  if (parts.length > MAX_POSITIONS) return { ok: false, message: `at most ${MAX_POSITIONS} positions` };
  for (const [i, part] of parts.entries()) {
    const fields = part.split('|');
    const bad = (why: string): ParsedEventId => ({ ok: false, message: `position ${i + 1}: ${why}` });
    if (fields.length !== 3) return bad('expected <stream>|<epoch>|<seq>');
    const [rawStream, rawEpoch, rawSeq] = fields as [string, string, string];
    const stream = unescapePart(rawStream);
    const epoch = unescapePart(rawEpoch);
    if (stream.length < 1 || stream.length > 140) return bad('stream must be 1-140 characters');
    if (epoch.length < 1 || epoch.length > 128) return bad('epoch must be 1-128 characters');
    if (!/^\d{1,15}$/.test(rawSeq)) return bad('seq must be a non-negative integer');
    positions[stream] = { seq: Number(rawSeq), epoch };
  }
  return { ok: true, positions };
}
