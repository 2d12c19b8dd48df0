/**
 * The Bus port's contract, as the gateway, the SSE endpoint and the metrics rely on it: a publish reaches
 * every local listener at once (synchronously, in order), a throwing listener is reported without stopping
 * the others, and an unsubscribed listener hears nothing more. Run against every adapter.
 */
import { describe, expect, it } from 'vitest';
import type { Bus } from '../../src/bus/bus.js';
import type { LogEntry } from '../../src/events/envelope.js';

export interface BusUnderTest {
  bus: Bus;
  /** What the adapter reported through its error callback. */
  errors: unknown[];
  close(): Promise<void>;
}

export const busEntry = (stream: string, seq: number): LogEntry => ({
  kind: 'event',
  stream,
  seq,
  timestamp: '2026-11-22T10:00:00.000Z',
  event: {
    id: `${stream}:${seq}`,
    type: 'tick',
    timestamp: '2026-11-22T10:00:00.000Z',
    stream,
    seq,
    meetingId: 'm1',
    data: { seq },
  },
});

export function busContract(name: string, make: () => Promise<BusUnderTest>): void {
  describe(`bus contract: ${name}`, () => {
    it('delivers each batch to every local listener synchronously and in publish order', async () => {
      const { bus, close } = await make();
      const first: number[] = [];
      const second: number[] = [];
      bus.subscribe((entries) => first.push(...entries.map((e) => e.seq)));
      bus.subscribe((entries) => second.push(...entries.map((e) => e.seq)));
      bus.publish([busEntry('R1', 1), busEntry('R1', 2)]);
      bus.publish([busEntry('R1', 3)]);
      expect(first).toEqual([1, 2, 3]);
      expect(second).toEqual([1, 2, 3]);
      await close();
    });

    it('reports a throwing listener and still delivers to the others', async () => {
      const { bus, errors, close } = await make();
      const seen: number[] = [];
      bus.subscribe(() => {
        throw new Error('listener broke');
      });
      bus.subscribe((entries) => seen.push(...entries.map((e) => e.seq)));
      bus.publish([busEntry('R1', 1)]);
      expect(seen).toEqual([1]);
      expect(errors).toEqual([expect.objectContaining({ message: 'listener broke' })]);
      await close();
    });

    it('stops delivering to a listener once it unsubscribes', async () => {
      const { bus, close } = await make();
      const seen: number[] = [];
      const unsubscribe = bus.subscribe((entries) => seen.push(...entries.map((e) => e.seq)));
      bus.publish([busEntry('R1', 1)]);
      unsubscribe();
      bus.publish([busEntry('R1', 2)]);
      expect(seen).toEqual([1]);
      await close();
    });
  });
}
