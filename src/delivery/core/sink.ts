/**
 * What a transport provides to the subscription core: it only moves bytes. The core decides what to send,
 * in which order and how fast (src/delivery/core/session.ts).
 */
import type { Outgoing } from './outgoing.js';

export { CloseCode } from '@racewire/client/protocol';

export interface Sink {
  /**
   * Writes messages in order, framed for the transport. Returns false when the transport asked to wait:
   * `onDrain` then fires once it has written what it holds.
   */
  write(batch: readonly Outgoing[]): boolean;
  /** Bytes accepted but not yet handed to the kernel. */
  buffered(): number;
  /** Calls `listener` once, at the next drain. */
  onDrain(listener: () => void): void;
  /** Ends the connection with a close code and reason (SSE: a final `close` event, then the end). */
  end(code: number, reason: string): void;
  /** Tears the connection down at once. */
  destroy(): void;
}
