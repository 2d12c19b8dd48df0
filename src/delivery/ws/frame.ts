/**
 * The header of an unmasked, unfragmented WebSocket text frame (RFC 6455 5.2). The payload that follows it
 * is the shared message buffer, so one serialisation serves every subscriber of a variant.
 */
export function textFrameHeader(length: number): Buffer {
  if (length < 126) return Buffer.from([0x81, length]);
  if (length < 65536) {
    const h = Buffer.allocUnsafe(4);
    h[0] = 0x81;
    h[1] = 126;
    h.writeUInt16BE(length, 2);
    return h;
  }
  const h = Buffer.allocUnsafe(10);
  h[0] = 0x81;
  h[1] = 127;
  h.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
  h.writeUInt32BE(length >>> 0, 6);
  return h;
}
