/**
 * Several racewire nodes as child processes on one Redis, polling one simulator that runs in the test process
 * (on the cluster clock, like the nodes: the system clock moved to a fixed time of day, cluster-clock.ts) and
 * records every API request it receives.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import type { Clock } from '../../src/clock.js';
import { demoDay } from '../../src/runtime.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { until } from '../e2e/harness.js';
import { nodeArgs } from '../support/child-build.js';
import { shiftedDateEnv } from './cluster-clock.js';

const MAIN = fileURLToPath(new URL('../../src/main.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface ClusterSimulator {
  sim: Simulator;
  /** The simulator's clock: the cluster clock, unless the suite runs its node in its own process. */
  clock: Clock;
  url: string;
  /** Clock ms of every racing API request, in arrival order. */
  requests: number[];
  /**
   * The same requests with their paths (below the API prefix: `/meetings`, `/events/<race id>`), queries and
   * From headers (which node asked, where its env sets RACING_API_FROM).
   */
  calls: { path: string; query: string; from: string; at: number }[];
  /**
   * When each stall of this process's event loop over 1 s ended. The simulator stamps arrivals on this loop,
   * which stalls on a busy machine: a stamp late by more than the rate window's 1 s margin is no measure of the
   * arrival the budget promises about, so budget checks leave out the windows holding one (`peakPerMinute`).
   */
  stalls: number[];
  /** The longest stall seen, in ms (beyond the watcher's own tick). */
  worstStallMs(): number;
  close(): Promise<void>;
}

const STALL_TICK_MS = 100;

/** Stall ends on the simulator's clock, as they are compared with its stamps. */
function watchStalls(clock: Clock) {
  const stalls: number[] = [];
  let lastTick = clock.now();
  let worst = 0;
  const ticker = setInterval(() => {
    const now = clock.now();
    worst = Math.max(worst, now - lastTick - STALL_TICK_MS);
    if (now - lastTick > STALL_TICK_MS + 1_000) stalls.push(now);
    lastTick = now;
  }, STALL_TICK_MS);
  return { stalls, worst: () => worst, stop: () => clearInterval(ticker) };
}

/**
 * `clock`: `clusterClock` for nodes started by `spawnNode`, which moves theirs to it; `systemClock` for nodes
 * built in the test's own process.
 */
export async function startClusterSimulator(perMinute: number, clock: Clock): Promise<ClusterSimulator> {
  const requests: number[] = [];
  const calls: { path: string; query: string; from: string; at: number }[] = [];
  const sim = await createSimulator({
    seed: 7,
    clock,
    day: demoDay(clock.now()),
    // Above the budget, as a real provider's would be: the audit below, not a 429, is what must hold.
    rateLimit: { perMinute: perMinute * 2 },
    onApiRequest: (call) => {
      requests.push(call.at);
      calls.push(call);
    },
  });
  const url = await sim.listen({ port: 0, host: '127.0.0.1' });
  const watcher = watchStalls(clock);
  return {
    sim,
    clock,
    url,
    requests,
    calls,
    stalls: watcher.stalls,
    worstStallMs: watcher.worst,
    close: () => {
      watcher.stop();
      return sim.close();
    },
  };
}

/** The most requests in any window [t, t + 60 s), over every start t (the worst windows begin at a request). */
export function maxInAnyMinute(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - 60_000 + 1) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

export interface NodeProcess {
  name: string;
  url: string;
  child: ChildProcess;
  output: string[];
  exited: Promise<number | null>;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted field by field in the tests
  get(path: string): Promise<{ status: number; body: any }>;
}

export function clusterEnv(opts: {
  prefix: string;
  upstream: string;
  budget: number;
}): Record<string, string> {
  return {
    STORE: 'redis',
    REDIS_URL: process.env.REDIS_URL ?? '',
    // The CI's Redis and the tests' own keep nothing across a restart (--save '' --appendonly no).
    REDIS_ALLOW_VOLATILE: 'true',
    REDIS_PREFIX: opts.prefix,
    RACING_API_URL: opts.upstream,
    RACING_API_MAX_RPM: String(opts.budget),
    LEASE_TTL_MS: '1500',
    DISCOVERY_INTERVAL_MS: '3000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
  };
}

/**
 * Starts `src/main.ts` as a node of its own, from the test run's build (support/child-build.ts), not through the
 * tsx CLI, so SIGKILL reaches the node itself.
 */
export async function spawnNode(
  name: string,
  env: Record<string, string>,
  // A start takes a while on a busy 2-core machine (and longer through tsx, outside the test run).
  timeoutMs = 60_000,
  /** The process entry: `npm start`'s, or a test entry that injects build options (the nemesis's node.ts). */
  entry = MAIN,
): Promise<NodeProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, nodeArgs(entry), {
    cwd: ROOT,
    // On the cluster clock (cluster-clock.ts), as the simulator it polls.
    env: { ...process.env, ...env, ...shiftedDateEnv(), NODE_ID: name, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`);
    return { status: res.status, body: await res.json() };
  };
  await until(
    async () => {
      if (child.exitCode !== null)
        throw new Error(`node ${name} exited ${child.exitCode}: ${output.join('')}`);
      return (await get('/healthz').catch(() => undefined))?.status === 200;
    },
    `node ${name} to answer`,
    timeoutMs,
  ).catch((err) => {
    child.kill('SIGKILL');
    throw err;
  });
  return { name, url, child, output, exited, get };
}

export async function stopNode(node: NodeProcess): Promise<void> {
  if (node.child.exitCode !== null || node.child.signalCode !== null) return;
  node.child.kill('SIGTERM');
  await node.exited;
}

/** Which node holds the lease, as each node's /v1/ops says. */
export async function leaderOf(nodes: NodeProcess[]): Promise<NodeProcess | undefined> {
  for (const node of nodes) {
    if (node.child.exitCode !== null || node.child.signalCode !== null) continue;
    const ops = await node.get('/v1/ops').catch(() => undefined);
    if (ops?.body.cluster?.leader) return node;
  }
  return undefined;
}

/** A fresh key prefix, and a way to delete everything under it afterwards. */
export function redisPrefix(label: string) {
  const prefix = `racewire-${label}-${randomUUID()}:`;
  return {
    prefix,
    async clean() {
      const redis = new Redis(process.env.REDIS_URL!);
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    },
  };
}

/** An Open race at least `minLeadMs` from its jump with at least `minRunners` runners still running. */
export function pickOpenRace(
  { sim, clock }: ClusterSimulator,
  opts: { minLeadMs: number; minRunners: number },
) {
  const now = clock.now();
  const race = sim.world.races.find((r) => {
    const view = sim.world.raceView(r.id, now);
    return (
      view.status === 'Open' &&
      Date.parse(view.startTime) > now + opts.minLeadMs &&
      view.runners.filter((x) => !x.scratched).length >= opts.minRunners
    );
  });
  if (!race) throw new Error('no suitable race in the simulated day');
  const runners = sim.world
    .raceView(race.id, now)
    .runners.filter((r) => !r.scratched)
    .map((r) => r.entrantId);
  return { raceId: race.id, runners };
}

/** Waits until `node` lists the race (its leader's discovery reached the shared log). */
export const raceListed = (node: NodeProcess, raceId: string) =>
  until(
    // A request the node drops (a pooled connection it closed as idle, or no answer at all: undefined) is
    // asked again, not a failure.
    async () =>
      (JSON.stringify((await node.get('/v1/meetings').catch(() => undefined))?.body) ?? '').includes(raceId),
    `race ${raceId} listed on ${node.name}`,
    60_000,
  );

/** A webhook receiver that records each delivery's webhook-id, event and body, answering 204. */
export async function startWebhookReceiver() {
  const received: { id: string; type: string; eventId: string; body: string }[] = [];
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const event = JSON.parse(body) as { id: string; type: string };
      received.push({ id: String(req.headers['webhook-id']), type: event.type, eventId: event.id, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise((r) => server.close(r)),
  };
}

/**
 * Registers `receiverUrl` on `node` for the scratchings of one race (loopback: no admin token needed). Of one
 * race: the simulator scratches runners of its own in other races, more at one time of day than another, and
 * a test that counted those failed by the hour it ran at.
 */
export async function registerScratchingHook(
  node: NodeProcess,
  receiverUrl: string,
  raceId: string,
): Promise<number> {
  const res = await fetch(`${node.url}/v1/webhooks/endpoints`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ url: receiverUrl, eventTypes: ['runner.scratched'], filters: { raceId } }),
  });
  return res.status;
}
