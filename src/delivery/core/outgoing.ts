/**
 * A serialised message, shared by every connection that sends it: its UTF-8 JSON in parts (a snapshot's
 * document is one buffer shared by every variant of the message), never copied per connection. Transports
 * add their own framing (a WebSocket frame header, SSE `id:`/`event:`/`data:` lines).
 */
export type StreamMessageType = 'snapshot' | 'patch' | 'event' | 'resumed';

/** Where a stream message belongs; SSE turns it into `event:` and `id:`. */
export interface StreamMeta {
  type: StreamMessageType;
  stream: string;
  /** The message's seq (for `resumed`, the client's position). */
  seq: number;
  /** Known on snapshots and `resumed`. */
  epoch?: string;
}

export interface Outgoing {
  parts: readonly Buffer[];
  bytes: number;
  meta?: StreamMeta;
  /** A heartbeat, sent at this wall-clock time (SSE writes it as a comment). */
  heartbeat?: number;
}

export function outgoing(message: unknown, meta?: StreamMeta): Outgoing {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  return meta ? { parts: [body], bytes: body.length, meta } : { parts: [body], bytes: body.length };
}

const CLOSE_BRACE = Buffer.from('}');

/**
 * A snapshot message whose document is an already serialised buffer: the fields, then the shared document.
 * `fields` must not contain `document`.
 */
export function snapshotOutgoing(
  fields: Record<string, unknown>,
  document: Buffer,
  meta: StreamMeta,
): Outgoing {
  const head = JSON.stringify(fields);
  const prefix = Buffer.from(`${head.slice(0, -1)},"document":`, 'utf8');
  return { parts: [prefix, document, CLOSE_BRACE], bytes: prefix.length + document.length + 1, meta };
}

/** The message as one buffer (for transports that cannot write parts). */
export function joined(o: Outgoing): Buffer {
  return o.parts.length === 1 ? o.parts[0]! : Buffer.concat(o.parts as Buffer[], o.bytes);
}
