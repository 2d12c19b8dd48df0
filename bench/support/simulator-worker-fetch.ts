/**
 * A `fetch` for the racing API answered by a simulator in a worker thread (simulator-worker.ts), so the soak
 * runs the service on one core and its upstream on the other. Each request posts its URL and the race time
 * of `clock` at sending; the answer comes back as status, headers and the body's bytes (transferred, not
 * copied), and the caller parses them as it would a socket's. Built from the same options as the embedded
 * simulator (`embeddedSimulatorOptions`), it answers as that one does at the same race time.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import type { Clock } from '../../src/clock.js';

export interface SimulatorWorkerData {
  seed: number;
  day: string;
  rateLimit: { perMinute: number };
  /** The race time the simulator starts at (its clock shows each request's own time after). */
  now: number;
}
export interface SimulatorWorkerRequest {
  id: number;
  /** Path and query. */
  url: string;
  /** The race time the request was sent at. */
  at: number;
}
export type SimulatorWorkerAnswer =
  | { id: number; status: number; headers: Record<string, string>; body: ArrayBuffer }
  | { id: number; error: string };

export interface SimulatorWorkerFetch {
  fetch: (url: string) => Promise<Response>;
  close(): Promise<void>;
}

export async function startSimulatorWorker(
  opts: Omit<SimulatorWorkerData, 'now'> & { clock: Clock },
): Promise<SimulatorWorkerFetch> {
  const { clock, ...rest } = opts;
  const workerData: SimulatorWorkerData = { ...rest, now: clock.now() };
  // The worker is TypeScript: its entry registers tsx's loader (simulator-worker.mjs).
  const worker = new Worker(new URL('./simulator-worker.mjs', import.meta.url), { workerData });
  const waiting = new Map<number, { resolve: (r: Response) => void; reject: (e: Error) => void }>();
  const fail = (err: Error) => {
    for (const w of waiting.values()) w.reject(err);
    waiting.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`the simulator worker exited (${code})`)));
  const [ready] = await once(worker, 'message');
  if (ready !== 'ready') throw new Error(`the simulator worker said ${String(ready)}`);
  worker.on('message', (answer: SimulatorWorkerAnswer) => {
    const w = waiting.get(answer.id);
    if (!w) return;
    waiting.delete(answer.id);
    if ('error' in answer) w.reject(new Error(answer.error));
    else w.resolve(new Response(answer.body, { status: answer.status, headers: answer.headers }));
  });
  let nextId = 0;
  return {
    fetch(url) {
      const u = new URL(url);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({
          id,
          url: u.pathname + u.search,
          at: clock.now(),
        } satisfies SimulatorWorkerRequest);
      });
    },
    async close() {
      await worker.terminate();
    },
  };
}
