/**
 * Fan-out through Redis: one gateway node against two, same load, same run. A publisher appends events to
 * the Redis event log and publishes them on the Redis bus (as the leader does); gateway nodes (child
 * processes, each a fastify app with the WebSocket gateway on the shared log and bus) fan them out; the
 * load generator of bench/ws-fanout.ts (another child) holds the subscribers, split evenly over the nodes,
 * and measures emit -> receipt latency. Reports deliveries/s in a burst and p50/p99 at a steady rate.
 *
 *   REDIS_URL=redis://127.0.0.1:6379 npx tsx bench/cluster-fanout.ts [--clients 4000] [--rate 20] [--seconds 5] [--burst 200]
 */
import { type ChildProcess, fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { createRedisBus } from '../src/bus/redis-bus.js';
import type { NewEntry } from '../src/events/envelope.js';
import { createRedisEventLog } from '../src/store/redis/redis-event-log.js';
import { unboundedGateway } from './unbounded-gateway.js';

const nowMs = () => performance.timeOrigin + performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One gateway node: the shared log and bus, no poller. */
async function gatewayNode(prefix: string, nodeId: string) {
  const redis = new Redis(REDIS_URL);
  const sub = new Redis(REDIS_URL);
  const log = createRedisEventLog({ redis, prefix });
  const bus = createRedisBus({ pub: redis, sub, nodeId, channel: `${prefix}entries` });
  await bus.ready;
  const app = Fastify();
  await unboundedGateway(app, { log, bus });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  let cpu0 = process.cpuUsage();
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'cpu-start') cpu0 = process.cpuUsage();
    if (m.cmd === 'cpu') {
      const cpu = process.cpuUsage(cpu0);
      process.send?.({ cmd: 'cpu', us: cpu.user + cpu.system });
    }
    if (m.cmd === 'exit') process.exit(0);
  });
  process.send?.({ cmd: 'up', url: `ws://127.0.0.1:${port}/ws` });
}

function request<T>(child: ChildProcess, msg: object, reply: string): Promise<T> {
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

const forkUp = async (file: string, args: string[]) => {
  const child = fork(file, args, { execArgv: ['--import', 'tsx'] });
  const up = await new Promise<{ url?: string }>((r) =>
    child.once('message', (m) => r(m as { url?: string })),
  );
  return { child, url: up.url };
};

async function measure(
  nodes: number,
  opts: { clients: number; rate: number; seconds: number; burst: number },
) {
  const prefix = `racewire-bench:${randomUUID()}:`;
  const redis = new Redis(REDIS_URL);
  const sub = new Redis(REDIS_URL);
  const log = createRedisEventLog({ redis, prefix });
  const bus = createRedisBus({ pub: redis, sub, nodeId: 'publisher', channel: `${prefix}entries` });
  const document = { race: { event_id: 'R1' } };
  await log.append('R1', { entries: [{ kind: 'snapshot', document }], document, now: new Date() });

  const self = fileURLToPath(import.meta.url);
  const gateways = await Promise.all(
    Array.from({ length: nodes }, (_, i) => forkUp(self, ['--gateway', prefix, `gw${i}`])),
  );
  const loadGen = await forkUp(fileURLToPath(new URL('./ws-fanout.ts', import.meta.url)), ['--child']);
  for (const gw of gateways) {
    const n = Math.floor(opts.clients / nodes);
    await request(loadGen.child, { cmd: 'connect', url: gw.url, n, subscribe: true }, 'connected');
  }
  await sleep(500);
  const publish = async () => {
    const entry: NewEntry = {
      kind: 'event',
      event: { type: 'odds.changed', meetingId: 'M1', raceId: 'R1', data: { entrantId: 'E1', t: nowMs() } },
    };
    bus.publish(await log.append('R1', { entries: [entry], now: new Date() }));
  };
  type Collected = { count: number; lastAt: number; p50: number; p99: number; max: number };

  // Steady rate: latency.
  const start = nowMs();
  for (let i = 0; i < opts.rate * opts.seconds; i++) {
    await publish();
    await sleep(Math.max(0, start + ((i + 1) * 1000) / opts.rate - nowMs()));
  }
  await sleep(1000);
  const paced = await request<Collected>(loadGen.child, { cmd: 'collect' }, 'collected');

  // Burst: throughput, and the gateways' CPU per delivery.
  for (const gw of gateways) gw.child.send({ cmd: 'cpu-start' });
  const burstStart = nowMs();
  for (let i = 0; i < opts.burst; i++) await publish();
  const expected = opts.burst * Math.floor(opts.clients / nodes) * nodes;
  let received = 0;
  let lastAt = burstStart;
  const deadline = Date.now() + 60_000;
  while (received < expected && Date.now() < deadline) {
    await sleep(200);
    const c = await request<Collected>(loadGen.child, { cmd: 'collect' }, 'collected');
    received += c.count;
    if (c.count > 0) lastAt = c.lastAt;
  }
  const cpuUs = (
    await Promise.all(gateways.map((gw) => request<{ us: number }>(gw.child, { cmd: 'cpu' }, 'cpu')))
  ).reduce((a, b) => a + b.us, 0);

  loadGen.child.send({ cmd: 'exit' });
  for (const gw of gateways) gw.child.send({ cmd: 'exit' });
  await bus.close();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  sub.disconnect();
  return {
    gatewayNodes: nodes,
    clients: opts.clients,
    paced: {
      deliveries: paced.count,
      expected: opts.rate * opts.seconds * opts.clients,
      p50ms: +paced.p50.toFixed(2),
      p99ms: +paced.p99.toFixed(2),
    },
    burst: {
      deliveries: received,
      expected,
      deliveriesPerSec: Math.round(received / ((lastAt - burstStart) / 1000)),
      gatewayCpuUsPerDelivery: +(cpuUs / Math.max(1, received)).toFixed(3),
    },
  };
}

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      gateway: { type: 'boolean' },
      clients: { type: 'string', default: '4000' },
      rate: { type: 'string', default: '20' },
      seconds: { type: 'string', default: '5' },
      burst: { type: 'string', default: '200' },
    },
  });
  if (values.gateway) return gatewayNode(positionals[0]!, positionals[1]!);
  const opts = {
    clients: Number(values.clients),
    rate: Number(values.rate),
    seconds: Number(values.seconds),
    burst: Number(values.burst),
  };
  const results = [await measure(1, opts), await measure(2, opts)];
  console.log(JSON.stringify(results, null, 2));
  process.exit(0);
}

void main();
