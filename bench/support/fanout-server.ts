/**
 * One fan-out server in a child process, so its CPU and memory are its own: racewire over WebSocket or SSE
 * (the subscription core behind the gateway or the SSE endpoint), a naive `ws` server (`send` per client) or a
 * frame-once `ws` server (the message framed once, one write of that buffer per client socket, as ws itself
 * corks a header and its payload). Every server publishes the same odds event, one per event-loop turn.
 *
 * Parent messages: {cmd:'mem'} -> {rss, heap} (after a GC); {cmd:'run', messages, rate} publishes `messages`
 * events at `rate` per second, each on its own timer turn, and answers {writeMs: number[]}: per message, the
 * time from its publish to the end of the turn that wrote its frames; {cmd:'cpu'} -> {cpuUs} since the run
 * started; {cmd:'exit'}.
 */
import Fastify from 'fastify';
import WebSocket, { WebSocketServer } from 'ws';
import { createMemoryBus } from '../../src/bus/bus.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { unboundedGateway } from '../unbounded-gateway.js';

/** ws's own framing (not in its type declarations). */
const { Sender } = WebSocket as unknown as {
  Sender: { frame(data: Buffer, options: Record<string, unknown>): Buffer[] };
};

export type FanoutImpl = 'racewire-ws' | 'racewire-sse' | 'ws-naive' | 'ws-frame-once';
const impl = (process.env.IMPL ?? 'racewire-ws') as FanoutImpl;
const nowMs = () => performance.timeOrigin + performance.now();

function oddsEvent(seq: number) {
  const timestamp = new Date().toISOString();
  return {
    id: `R1:${seq}`,
    type: 'odds.changed',
    timestamp,
    stream: 'R1',
    seq,
    meetingId: 'M1',
    raceId: 'R1',
    data: { entrantId: 'E1', win: 3.5, place: 1.6, t: nowMs() },
  };
}

interface Server {
  url: string;
  publish(seq: number): void;
}

async function racewire(): Promise<Server> {
  const app = Fastify();
  const log = createMemoryEventLog({ window: 1000 });
  const bus = createMemoryBus();
  await unboundedGateway(app, { log, bus, sse: true });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  const document = { race: { event_id: 'R1' } };
  await log.append('R1', { entries: [{ kind: 'snapshot', document }], document, now: new Date() });
  return {
    url:
      impl === 'racewire-sse'
        ? `http://127.0.0.1:${port}/v1/sse?channel=race:R1`
        : `ws://127.0.0.1:${port}/ws`,
    publish(seq) {
      const event = oddsEvent(seq);
      const entry: LogEntry = { kind: 'event', stream: 'R1', seq, timestamp: event.timestamp, event };
      bus.publish([entry]);
    },
  };
}

async function plainWs(): Promise<Server> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const port = (wss.address() as { port: number }).port;
  const message = (seq: number) =>
    JSON.stringify({ type: 'event', stream: 'R1', seq, event: oddsEvent(seq) });
  return {
    url: `ws://127.0.0.1:${port}/`,
    publish:
      impl === 'ws-naive'
        ? (seq) => {
            const text = message(seq);
            for (const client of wss.clients) client.send(text);
          }
        : (seq) => {
            const payload = Buffer.from(message(seq));
            const [header, data] = Sender.frame(payload, {
              fin: true,
              opcode: 1,
              mask: false,
              readOnly: true,
              rsv1: false,
            }) as [Buffer, Buffer];
            const frame = Buffer.concat([header, data]);
            for (const client of wss.clients) {
              const socket = (client as unknown as { _socket: import('node:net').Socket })._socket;
              if (client.readyState === WebSocket.OPEN) socket.write(frame);
            }
          },
  };
}

let cpu0 = process.cpuUsage();
const server = impl.startsWith('racewire') ? await racewire() : await plainWs();

process.on('message', (msg: { cmd: string; messages?: number; rate?: number }) => {
  if (msg.cmd === 'mem') {
    global.gc?.();
    const m = process.memoryUsage();
    process.send?.({ cmd: 'mem', rss: m.rss, heap: m.heapUsed + m.external });
  } else if (msg.cmd === 'run') {
    const messages = msg.messages ?? 100;
    const gap = 1000 / (msg.rate ?? 20);
    const writeMs: number[] = [];
    cpu0 = process.cpuUsage();
    const start = nowMs();
    let sent = 0;
    const next = () => {
      sent++;
      const t0 = nowMs();
      server.publish(sent + 1); // seq 1 is the snapshot
      // Runs after the turn's writes (a flush deferred to the check phase was queued before this).
      setImmediate(() => {
        writeMs.push(nowMs() - t0);
        if (writeMs.length === messages) process.send?.({ cmd: 'ran', writeMs });
      });
      if (sent < messages) setTimeout(next, Math.max(0, start + sent * gap - nowMs()));
    };
    next();
  } else if (msg.cmd === 'cpu') {
    const cpu = process.cpuUsage(cpu0);
    process.send?.({ cmd: 'cpu', cpuUs: cpu.user + cpu.system });
  } else if (msg.cmd === 'exit') process.exit(0);
});
process.send?.({ cmd: 'up', url: server.url });
