/**
 * A `fetch` that answers from the simulator in the same process (fastify's inject, no sockets), for
 * benchmarks and tests that drive the whole client on a manual clock. It counts requests in flight, so a
 * driver can wait for their answers (`idle`) before it moves time on.
 */
import type { FastifyInstance } from 'fastify';
import { createInFlight } from '../in-flight.js';

export interface InProcessFetch {
  fetch: (url: string) => Promise<Response>;
  /** Resolves once every request sent has been answered (at once when none is in flight). */
  idle(): Promise<void>;
}

export function createInProcessFetch(
  sim: { app: FastifyInstance },
  onSend: (url: URL) => void = () => {},
): InProcessFetch {
  const io = createInFlight();
  return {
    idle: () => io.idle(),
    async fetch(url) {
      const u = new URL(url);
      onSend(u);
      const done = io.start();
      try {
        // As a stream: inject otherwise decodes every body into a string nobody reads (5 % of the soak's CPU),
        // and the caller decodes the bytes itself, as it does a socket's.
        const res = await sim.app.inject({
          method: 'GET',
          url: u.pathname + u.search,
          payloadAsStream: true,
        });
        const chunks: Buffer[] = await res.stream().toArray();
        const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
        return new Response(new Uint8Array(raw.buffer as ArrayBuffer, raw.byteOffset, raw.byteLength), {
          status: res.statusCode,
          headers: res.headers as Record<string, string>,
        });
      } finally {
        done();
      }
    },
  };
}
