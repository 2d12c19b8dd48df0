/**
 * Fan-out benchmark: N subscribers of one race on loopback, one odds event published per event-loop turn (one
 * race change per turn, as real traffic produces), at a steady rate. Each server runs alone in a child process
 * (its CPU and memory apart), the load generator in another. Servers: racewire over WebSocket and over SSE, a
 * naive `ws` server (`send` per client) and a frame-once `ws` server (one framed buffer, one socket write per
 * client). Runs interleave (the order rotates each run); ratios are taken within a run, then their median and
 * spread across runs are reported.
 *
 *   node --import tsx bench/ws-fanout.ts [--clients 2000] [--rate 20] [--messages 200] [--runs 3]
 *     [--impls racewire-ws,ws-frame-once,ws-naive,racewire-sse]
 *
 * Per server: server CPU per delivery (user+system, from the first publish until the last client received the
 * last message), latency from publish (the `t` in the message) to receipt p50/p99, publish-to-written time per
 * message (p50/p99, stamped in the server after the turn that wrote the frames), and memory per connection
 * (RSS and heap+external after a GC, before and after the clients connected and subscribed).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { FanoutImpl } from './support/fanout-server.js';

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '2000' },
    rate: { type: 'string', default: '20' },
    messages: { type: 'string', default: '200' },
    runs: { type: 'string', default: '3' },
    impls: { type: 'string', default: 'racewire-ws,ws-frame-once,ws-naive,racewire-sse' },
  },
});
const clients = Number(values.clients);
const rate = Number(values.rate);
const messages = Number(values.messages);
const runs = Number(values.runs);
const impls = values.impls.split(',') as FanoutImpl[];

function start(
  script: string,
  env: Record<string, string>,
): Promise<ChildProcess & { up: { url?: string } }> {
  const child = fork(new URL(script, import.meta.url).pathname, [], {
    env: { ...process.env, ...env },
    execArgv: [
      '--expose-gc',
      '--import',
      'tsx',
      // BENCH_CPU_PROF=<dir>: a CPU profile of each server.
      ...(process.env.BENCH_CPU_PROF && env.IMPL
        ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
        : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  }) as ChildProcess & { up: { url?: string } };
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', (m: { url?: string }) => {
      child.up = m;
      resolve(child);
    });
  });
}

function ask<T>(child: ChildProcess, msg: object, reply: string): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { cmd: string }) => {
      if (m.cmd !== reply) return;
      child.off('message', on);
      resolve(m as T);
    };
    child.on('message', on);
    child.send(msg);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
};
const r2 = (x: number) => Math.round(x * 100) / 100;

interface Result {
  impl: FanoutImpl;
  delivered: number;
  expected: number;
  cpuUsPerDelivery: number;
  latencyP50ms: number;
  latencyP99ms: number;
  writtenP50ms: number;
  writtenP99ms: number;
  rssPerConn: number;
  heapPerConn: number;
}

async function measure(impl: FanoutImpl): Promise<Result> {
  const server = await start('./support/fanout-server.ts', { IMPL: impl });
  const mem0 = await ask<{ rss: number; heap: number }>(server, { cmd: 'mem' }, 'mem');
  const load = await start('./support/fanout-load.ts', {});
  await ask(
    load,
    {
      cmd: 'connect',
      url: server.up.url,
      n: clients,
      kind: impl === 'racewire-sse' ? 'sse' : 'ws',
      subscribe: impl.startsWith('racewire'),
    },
    'connected',
  );
  await sleep(500);
  const mem1 = await ask<{ rss: number; heap: number }>(server, { cmd: 'mem' }, 'mem');
  const expected = messages * clients;
  const received = ask<{ count: number; p50: number; p99: number }>(
    load,
    { cmd: 'wait', expected, timeoutMs: (messages / rate) * 1000 + 30_000 },
    'waited',
  );
  const ran = await ask<{ writeMs: number[] }>(server, { cmd: 'run', messages, rate }, 'ran');
  const got = await received;
  const { cpuUs } = await ask<{ cpuUs: number }>(server, { cmd: 'cpu' }, 'cpu');
  load.send({ cmd: 'exit' });
  server.send({ cmd: 'exit' });
  await Promise.all([load, server].map((c) => new Promise((r) => c.once('exit', r))));
  return {
    impl,
    delivered: got.count,
    expected,
    cpuUsPerDelivery: r2(cpuUs / Math.max(1, got.count)),
    latencyP50ms: r2(got.p50),
    latencyP99ms: r2(got.p99),
    writtenP50ms: r2(q(ran.writeMs, 0.5)),
    writtenP99ms: r2(q(ran.writeMs, 0.99)),
    rssPerConn: Math.round((mem1.rss - mem0.rss) / clients),
    heapPerConn: Math.round((mem1.heap - mem0.heap) / clients),
  };
}

const RATIOS: Array<[FanoutImpl, FanoutImpl]> = [
  ['racewire-ws', 'ws-frame-once'],
  ['racewire-ws', 'ws-naive'],
  ['racewire-sse', 'racewire-ws'],
  ['racewire-sse', 'ws-frame-once'],
];

const all: Result[][] = [];
for (let run = 0; run < runs; run++) {
  const order = impls.map((_, i) => impls[(i + run) % impls.length]!);
  const load = loadavg()[0]!.toFixed(1);
  const results: Result[] = [];
  for (const impl of order) results.push(await measure(impl));
  all.push(results);
  console.error(`run ${run + 1} (load ${load} -> ${loadavg()[0]!.toFixed(1)})`);
  console.error(JSON.stringify(results));
}

const summary: Record<string, unknown> = { clients, rate, messages, runs };
for (const impl of impls) {
  const rs = all.map((results) => results.find((r) => r.impl === impl)!);
  const pick = (k: keyof Result) => rs.map((r) => r[k] as number);
  summary[impl] = {
    delivered: `${Math.min(...pick('delivered'))}/${rs[0]!.expected}`,
    cpuUsPerDelivery: pick('cpuUsPerDelivery'),
    latencyP50ms: pick('latencyP50ms'),
    latencyP99ms: pick('latencyP99ms'),
    writtenP50ms: pick('writtenP50ms'),
    writtenP99ms: pick('writtenP99ms'),
    rssPerConn: pick('rssPerConn'),
    heapPerConn: pick('heapPerConn'),
  };
}
for (const [a, b] of RATIOS) {
  if (!impls.includes(a) || !impls.includes(b)) continue;
  const ratios = all.map((results) => {
    const cpu = (i: FanoutImpl) => results.find((r) => r.impl === i)!.cpuUsPerDelivery;
    return r2(cpu(a) / cpu(b));
  });
  summary[`cpu ${a} / ${b}`] = {
    median: q(ratios, 0.5),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    ratios,
  };
}
for (const [k, v] of Object.entries(summary)) console.log(`${k}: ${JSON.stringify(v)}`);
process.exit(0);
