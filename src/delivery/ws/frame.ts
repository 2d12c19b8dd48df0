/**
 * Builds an unmasked, unfragmented WebSocket text frame (RFC 6455 5.2) once, so one serialisation and one
 * header serve every subscriber of an audience.
 */
export function textFrame(payload: string): Buffer {
  const body = Buffer.from(payload, 'utf8');
  const len = body.length;
  const headerLen = len < 126 ? 2 : len < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLen + len);
  frame[0] = 0x81; // FIN + text opcode
  if (len < 126) {
    frame[1] = len;
  } else if (len < 65536) {
    frame[1] = 126;
    frame.writeUInt16BE(len, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(len / 2 ** 32), 2);
    frame.writeUInt32BE(len >>> 0, 6);
  }
  body.copy(frame, headerLen);
  return frame;
}

/** A serialised message: the JSON text (for clients we cannot write raw frames to) and its frame. */
export interface Outgoing {
  json: string;
  frame: Buffer;
  /** For a log entry's message: what it is and where (SSE writes these as `event:` and `id:`). */
  entry?: { type: 'snapshot' | 'patch' | 'event'; stream: string; seq: number };
}

export function outgoing(message: unknown): Outgoing {
  const json = JSON.stringify(message);
  return { json, frame: textFrame(json) };
}
