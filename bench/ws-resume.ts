/**
 * Resume storm: a gateway restarts over a surviving log and N clients reconnect at once, each resuming
 * one of R races from a position `behind` entries back. Measures the time until every client has caught
 * up with the head, and the bytes sent; then the same storm without positions (snapshots), to compare.
 * Clients run in this process (loopback), so times include their parsing.
 *
 *   npx tsx bench/ws-resume.ts [--clients 1000] [--races 20] [--history 300] [--behind 100]
 */
import { parseArgs } from 'node:util';
import fjp from 'fast-json-patch';
import Fastify from 'fastify';
import WebSocket from 'ws';
import { createMemoryBus } from '../src/bus/bus.js';
import { createMemoryEventLog } from '../src/store/memory-event-log.js';
import type { EventLog } from '../src/store/ports.js';
import { unboundedGateway } from './unbounded-gateway.js';

function raceDoc(raceId: string, n: number) {
  const runners: Record<string, unknown> = {};
  for (let r = 1; r <= 12; r++) {
    runners[`E${r}`] = {
      entrant_id: `E${r}`,
      name: `Runner ${r}`,
      barrier: r,
      jockey: `Jockey ${r}`,
      // Each step moves the odds of one runner, as a real market mostly does between two polls.
      odds: { fixed_win: 2 + r + (n % 12 === r - 1 ? n / 100 : 0), fixed_place: 1.5 + r / 10 },
    };
  }
  return { race: { event_id: raceId, meeting_id: 'M1', status: 'Open', distance: 1200 }, runners };
}

async function startServer(log: EventLog) {
  const app = Fastify();
  const gateway = await unboundedGateway(app, { log, bus: createMemoryBus() });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return { url: `ws://127.0.0.1:${port}/ws`, gateway, close: () => app.close() };
}

async function storm(
  url: string,
  clients: number,
  races: number,
  targets: Map<string, number>,
  from?: Map<string, { seq: number; epoch: string }>,
) {
  let bytes = 0;
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const sockets: WebSocket[] = [];
  await Promise.all(
    Array.from({ length: clients }, (_, i) => {
      const race = `R${i % races}`;
      const target = targets.get(race)!;
      return new Promise<void>((resolve, reject) => {
        const ws = new WebSocket(url, ['racewire.v1']);
        sockets.push(ws);
        ws.on('error', reject);
        ws.on('open', () => {
          const pos = from?.get(race);
          ws.send(
            JSON.stringify({
              op: 'subscribe',
              channel: `race:${race}`,
              ...(pos ? { from: { [race]: pos } } : {}),
            }),
          );
        });
        ws.on('message', (data: Buffer) => {
          bytes += data.length;
          const m = JSON.parse(data.toString()) as { type: string; seq?: number };
          if ((m.type === 'patch' || m.type === 'event' || m.type === 'snapshot') && m.seq === target)
            resolve();
        });
      });
    }),
  );
  const ms = performance.now() - start;
  const cpu = process.cpuUsage(cpu0);
  for (const ws of sockets) ws.terminate();
  return {
    ms: Math.round(ms),
    bytes,
    bytesPerClient: Math.round(bytes / clients),
    cpuMs: Math.round((cpu.user + cpu.system) / 1000),
  };
}

async function main() {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '1000' },
      races: { type: 'string', default: '20' },
      history: { type: 'string', default: '300' },
      behind: { type: 'string', default: '100' },
    },
  });
  const clients = Number(values.clients);
  const races = Number(values.races);
  const history = Number(values.history);
  const behind = Number(values.behind);
  const log = createMemoryEventLog({ window: 1000 });
  const targets = new Map<string, number>();
  const from = new Map<string, { seq: number; epoch: string }>();
  for (let r = 0; r < races; r++) {
    const id = `R${r}`;
    let prev = raceDoc(id, 0);
    await log.append(id, {
      entries: [{ kind: 'snapshot', document: prev }],
      document: prev,
      now: new Date(),
    });
    for (let n = 1; n < history; n++) {
      const next = raceDoc(id, n);
      await log.append(id, {
        entries: [
          { kind: 'patch', ops: fjp.compare(prev, next) },
          { kind: 'event', event: { type: 'odds.changed', meetingId: 'M1', raceId: id, data: { n } } },
        ],
        document: next,
        now: new Date(),
      });
      prev = next;
    }
    const head = await log.head(id);
    targets.set(id, head.seq);
    from.set(id, { seq: head.seq - behind, epoch: head.epoch });
  }
  // The "restarted" server: a fresh gateway over the surviving log.
  const server = await startServer(log);
  const resumed = await storm(server.url, clients, races, targets, from);
  const snapshots = await storm(server.url, clients, races, targets);
  await server.close();
  console.log(JSON.stringify({ clients, races, behindEntries: behind, resumed, snapshots }, null, 2));
  process.exit(0);
}

void main();
