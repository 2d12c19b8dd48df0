/** A raw WebSocket subscriber that records every message of one race stream, for exact sequence checks. */
import WebSocket from 'ws';
import { until } from '../e2e/harness.js';

export interface StreamMessage {
  type: string;
  stream?: string;
  seq?: number;
  epoch?: string;
  event?: { id: string; type: string; timestamp: string; data: Record<string, unknown> };
  document?: unknown;
}

/** Subscribes to one race; with `from`, resumes from that position instead of taking a snapshot. */
export async function recordRace(baseUrl: string, raceId: string, from?: { seq: number; epoch: string }) {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/ws`);
  const messages: StreamMessage[] = [];
  const errors: unknown[] = [];
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as StreamMessage;
    if (msg.type === 'error') errors.push(msg);
    if (msg.stream === raceId) messages.push(msg);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  ws.send(
    JSON.stringify({
      op: 'subscribe',
      channel: `race:${raceId}`,
      ...(from ? { from: { [raceId]: from } } : {}),
    }),
  );
  const attached = () => messages.some((m) => m.type === 'snapshot' || m.type === 'resumed');
  await until(attached, `snapshot or resume of ${raceId}`, 15_000);
  return {
    messages,
    errors,
    /** Seqs of every stream entry after the first snapshot (snapshot, patch, event), in arrival order. */
    seqsAfterSnapshot() {
      const first = messages.findIndex((m) => m.type === 'snapshot');
      return messages
        .slice(first + 1)
        .filter((m) => m.type === 'snapshot' || m.type === 'patch' || m.type === 'event')
        .map((m) => m.seq!);
    },
    /** True once the race has a document (the first fetch was made before or after subscribing). */
    hasDocument: () => messages.some((m) => m.type === 'snapshot' && m.document !== null),
    /** The last seq received and the epoch of the stream (from the first snapshot or the resume). */
    position() {
      const epoch = messages.find((m) => m.epoch !== undefined)?.epoch ?? '';
      const last = messages.filter((m) => m.seq !== undefined).at(-1)?.seq ?? 0;
      return { seq: last, epoch };
    },
    firstSnapshot: () => messages.find((m) => m.type === 'snapshot')!,
    events: () => messages.flatMap((m) => (m.type === 'event' && m.event ? [m.event] : [])),
    closed: () => ws.readyState !== WebSocket.OPEN,
    close: () => ws.close(),
  };
}
