/**
 * The soak's simulator in a worker thread (started by `startSimulatorWorker`, simulator-worker-fetch.ts): the
 * racing API answered through fastify's inject on the second core. Each request carries the race time it was
 * sent at, and this simulator's clock shows it while the request is answered: the soak moves time only once
 * no request is in flight, so the requests in flight together were all sent at one time.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Clock } from '../../src/clock.js';
import { createSimulator } from '../../src/simulator/index.js';
import type {
  SimulatorWorkerAnswer,
  SimulatorWorkerData,
  SimulatorWorkerRequest,
} from './simulator-worker-fetch.js';

const port = parentPort;
if (!port) throw new Error('simulator-worker.ts runs as a worker thread');
const data = workerData as SimulatorWorkerData;
let now = data.now;
const clock: Clock = {
  now: () => now,
  // The simulator only reads the time; a sleep here would never be woken by the soak's steps.
  sleep: () => Promise.reject(new Error('the soak simulator worker has no timers')),
};
const sim = await createSimulator({ seed: data.seed, day: data.day, rateLimit: data.rateLimit, clock });

port.on('message', async ({ id, url, at }: SimulatorWorkerRequest) => {
  now = at;
  try {
    // As a stream: inject otherwise decodes every body into a string nobody reads (see in-process-fetch.ts).
    const res = await sim.app.inject({ method: 'GET', url, payloadAsStream: true });
    const chunks: Buffer[] = await res.stream().toArray();
    const raw = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
    // A small Buffer is a view on Node's shared pool: transfer only a buffer the body owns whole, copy the rest.
    const whole = raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength;
    const body = (
      whole ? raw.buffer : raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)
    ) as ArrayBuffer;
    const answer: SimulatorWorkerAnswer = {
      id,
      status: res.statusCode,
      headers: res.headers as Record<string, string>,
      body,
    };
    port.postMessage(answer, [body]);
  } catch (err) {
    port.postMessage({ id, error: String(err) } satisfies SimulatorWorkerAnswer);
  }
});
port.postMessage('ready');
