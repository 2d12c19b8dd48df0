/**
 * Fan-out benchmark: N subscribers of one race on loopback, a load generator in a child process.
 * Runs racewire's gateway and, in the same run, a baseline plain `ws` server that serialises once and
 * calls send() per client. Reports deliveries/s, emit->receipt latency, server CPU per delivery and
 * memory per idle connection.
 *
 *   npx tsx bench/ws-fanout.ts [--clients 5000] [--rate 20] [--seconds 5] [--burst 200] [--only racewire|baseline]
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import WebSocket, { WebSocketServer } from 'ws';
import { createMemoryBus } from '../src/bus/bus.js';
import type { LogEntry } from '../src/events/envelope.js';
import { createMemoryEventLog } from '../src/store/memory-event-log.js';
import { unboundedGateway } from './unbounded-gateway.js';

const nowMs = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------- load generator (child process)
type ToChild =
  | { cmd: 'connect'; url: string; n: number; subscribe: boolean }
  | { cmd: 'collect' }
  | { cmd: 'exit' };

async function loadGenerator() {
  let sockets: WebSocket[] = [];
  let latencies = new Float64Array(1 << 22);
  let count = 0;
  let lastAt = 0;
  const onMessage = (data: WebSocket.RawData) => {
    const buf = data as Buffer;
    const i = buf.indexOf('"t":');
    if (i < 0) return;
    const t = Number.parseFloat(buf.toString('latin1', i + 4, i + 24));
    const at = nowMs();
    if (count < latencies.length) latencies[count] = at - t;
    count++;
    lastAt = at;
  };
  process.on('message', (msg: ToChild) => {
    handle(msg).catch((err) => {
      console.error('load generator failed', err);
      process.exit(1);
    });
  });
  const handle = async (msg: ToChild) => {
    if (msg.cmd === 'connect') {
      const batch = 250;
      for (let i = 0; i < msg.n; i += batch) {
        await Promise.all(
          Array.from({ length: Math.min(batch, msg.n - i) }, () => {
            return new Promise<void>((resolve, reject) => {
              const ws = new WebSocket(msg.url, ['racewire.v1']);
              ws.on('error', reject);
              ws.on('open', () => {
                sockets.push(ws);
                if (!msg.subscribe) return resolve();
                ws.send(JSON.stringify({ op: 'subscribe', channel: 'race:R1' }));
              });
              ws.on('message', (data) => {
                if (msg.subscribe && data.toString().startsWith('{"type":"snapshot"')) resolve();
                onMessage(data);
              });
            });
          }),
        );
      }
      count = 0;
      process.send?.({ cmd: 'connected', n: sockets.length });
    } else if (msg.cmd === 'collect') {
      const n = Math.min(count, latencies.length);
      const sorted = latencies.slice(0, n).sort();
      const q = (p: number) => sorted[Math.min(n - 1, Math.floor(p * n))] ?? Number.NaN;
      process.send?.({ cmd: 'collected', count, lastAt, p50: q(0.5), p99: q(0.99), max: sorted[n - 1] });
      count = 0;
      latencies = new Float64Array(1 << 22);
    } else if (msg.cmd === 'exit') {
      for (const ws of sockets) ws.terminate();
      sockets = [];
      process.exit(0);
    }
  };
  process.send?.({ cmd: 'up' });
}

// ---------------------------------------------------------------- servers (parent process)
interface Target {
  url: string;
  subscribe: boolean;
  /** Publishes one small event carrying its emit time `t`. */
  publish(seq: number): void;
  close(): Promise<void>;
}

async function racewireTarget(): Promise<Target> {
  const app = Fastify();
  const log = createMemoryEventLog({ window: 1000 });
  const bus = createMemoryBus();
  const gateway = await unboundedGateway(app, { log, bus });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const document = { race: { event_id: 'R1' } };
  await log.append('R1', { entries: [{ kind: 'snapshot', document }], document, now: new Date() });
  let seq = 1;
  return {
    url: `ws://127.0.0.1:${port}/ws`,
    subscribe: true,
    publish() {
      // Entries as the log would store them; appended synchronously-enough for a benchmark.
      seq++;
      const entry: LogEntry = {
        kind: 'event',
        stream: 'R1',
        seq,
        timestamp: new Date().toISOString(),
        event: {
          id: `R1:${seq}`,
          type: 'odds.changed',
          timestamp: new Date().toISOString(),
          stream: 'R1',
          seq,
          meetingId: 'M1',
          raceId: 'R1',
          data: { entrantId: 'E1', win: 3.5, place: 1.6, t: nowMs() },
        },
      };
      bus.publish([entry]);
    },
    async close() {
      await gateway.close();
      await app.close();
    },
  };
}

async function baselineTarget(): Promise<Target> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  let seq = 1;
  return {
    url: `ws://127.0.0.1:${port}/`,
    subscribe: false,
    publish() {
      seq++;
      const text = JSON.stringify({
        type: 'event',
        stream: 'R1',
        seq,
        event: {
          id: `R1:${seq}`,
          type: 'odds.changed',
          timestamp: new Date().toISOString(),
          stream: 'R1',
          seq,
          meetingId: 'M1',
          raceId: 'R1',
          data: { entrantId: 'E1', win: 3.5, place: 1.6, t: nowMs() },
        },
      });
      for (const client of wss.clients) client.send(text);
    },
    async close() {
      for (const c of wss.clients) c.terminate();
      await new Promise<void>((r) => wss.close(() => r()));
    },
  };
}

function request<T>(child: ReturnType<typeof fork>, msg: ToChild, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { cmd: string }) => {
      if (m.cmd === reply) {
        child.off('message', on);
        resolve(m as T);
      }
    };
    child.on('message', on);
    child.send(msg);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(
  name: string,
  make: () => Promise<Target>,
  opts: { clients: number; rate: number; seconds: number; burst: number },
) {
  const target = await make();
  const child = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: ['--import', 'tsx'] });
  await new Promise<void>((r) => child.once('message', () => r()));
  global.gc?.();
  const mem0 = process.memoryUsage();
  console.error(name, 'child up');
  await request(
    child,
    { cmd: 'connect', url: target.url, n: opts.clients, subscribe: target.subscribe },
    'connected',
  );
  await sleep(500);
  global.gc?.();
  const mem1 = process.memoryUsage();

  type Collected = { count: number; lastAt: number; p50: number; p99: number; max: number };
  // Paced phase: latency at a steady rate.
  const total = opts.rate * opts.seconds;
  console.error(name, 'connected');
  // Server side: publish -> every frame handed to the kernel (the gateway flushes in the check phase;
  // an immediate queued after the publish runs after that flush).
  const emitMs: number[] = [];
  let cpu0 = process.cpuUsage();
  const start = nowMs();
  for (let i = 0; i < total; i++) {
    const t0 = nowMs();
    target.publish(i);
    setImmediate(() => emitMs.push(nowMs() - t0));
    const due = start + ((i + 1) * 1000) / opts.rate;
    await sleep(Math.max(0, due - nowMs()));
  }
  await sleep(1000);
  let cpu = process.cpuUsage(cpu0);
  const paced = await request<Collected>(child, { cmd: 'collect' }, 'collected');
  const pacedCpuUs = (cpu.user + cpu.system) / Math.max(1, paced.count);
  const pacedUserUs = cpu.user / Math.max(1, paced.count);
  emitMs.sort((a, b) => a - b);
  const eq = (p: number) =>
    +(emitMs[Math.min(emitMs.length - 1, Math.floor(p * emitMs.length))] ?? 0).toFixed(2);

  // Burst phase: throughput with messages published back to back (in chunks, letting I/O run).
  cpu0 = process.cpuUsage();
  const burstStart = nowMs();
  for (let i = 0; i < opts.burst; i++) {
    target.publish(i);
    if (i % 10 === 9) await new Promise((r) => setImmediate(r));
  }
  const expected = opts.burst * opts.clients;
  let burst = await request<Collected>(child, { cmd: 'collect' }, 'collected');
  let received = burst.count;
  let lastAt = burst.lastAt;
  const deadline = Date.now() + 60_000;
  while (received < expected && Date.now() < deadline) {
    await sleep(200);
    burst = await request<Collected>(child, { cmd: 'collect' }, 'collected');
    received += burst.count;
    if (burst.count > 0) lastAt = burst.lastAt;
  }
  cpu = process.cpuUsage(cpu0);
  const burstSecs = (lastAt - burstStart) / 1000;
  child.send({ cmd: 'exit' } satisfies ToChild);
  await new Promise((r) => child.once('exit', r));
  await target.close();
  return {
    name,
    clients: opts.clients,
    paced: {
      deliveries: paced.count,
      expected: total * opts.clients,
      p50ms: +paced.p50.toFixed(2),
      p99ms: +paced.p99.toFixed(2),
      maxMs: +paced.max.toFixed(2),
      cpuUsPerDelivery: +pacedCpuUs.toFixed(3),
      userCpuUsPerDelivery: +pacedUserUs.toFixed(3),
      serverEmitP50ms: eq(0.5),
      serverEmitP99ms: eq(0.99),
    },
    burst: {
      deliveries: received,
      expected,
      deliveriesPerSec: Math.round(received / burstSecs),
      cpuUsPerDelivery: +((cpu.user + cpu.system) / Math.max(1, received)).toFixed(3),
      userCpuUsPerDelivery: +(cpu.user / Math.max(1, received)).toFixed(3),
    },
    idleConnectionBytes: {
      heapPlusExternal: Math.round(
        (mem1.heapUsed + mem1.external - mem0.heapUsed - mem0.external) / opts.clients,
      ),
      rss: Math.round((mem1.rss - mem0.rss) / opts.clients),
    },
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      child: { type: 'boolean' },
      clients: { type: 'string', default: '5000' },
      rate: { type: 'string', default: '20' },
      seconds: { type: 'string', default: '5' },
      burst: { type: 'string', default: '200' },
      only: { type: 'string' },
    },
  });
  if (values.child) return loadGenerator();
  const opts = {
    clients: Number(values.clients),
    rate: Number(values.rate),
    seconds: Number(values.seconds),
    burst: Number(values.burst),
  };
  const results = [];
  if (values.only !== 'baseline') results.push(await measure('racewire', racewireTarget, opts));
  if (values.only !== 'racewire')
    results.push(await measure('baseline ws send per client', baselineTarget, opts));
  console.log(JSON.stringify(results, null, 2));
  process.exit(0);
}

void main();
