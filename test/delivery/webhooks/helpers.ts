/** Shared test helpers: a local receiver, a database, events and an awaited condition. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import type { EventEntry, RaceEvent } from '../../../src/events/envelope.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';

export const silentLogger = pino({ level: 'silent' });

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Responder = (
  req: Received,
  index: number,
) => { status: number; headers?: Record<string, string>; body?: string; hangMs?: number };

/** A local HTTP server that records every request and answers with `respond` (default 200). */
export async function startReceiver(respond: Responder = () => ({ status: 200 })) {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(r);
      const answer = respond(r, received.length - 1);
      const reply = () => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      };
      if (answer.hangMs) setTimeout(reply, answer.hangMs).unref();
      else reply();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export const openMemoryDb = () => openDatabase(':memory:');

let seqs = new Map<string, number>();
export const resetSeqs = () => {
  seqs = new Map();
};

/** An event entry as the log would hand it over (ids `<stream>:<seq>`). */
export function eventEntry(
  type: string,
  data: unknown,
  opts: { raceId?: string; meetingId?: string; at?: number } = {},
): EventEntry {
  const raceId = opts.raceId ?? 'race-1';
  const stream = raceId;
  const seq = (seqs.get(stream) ?? 0) + 1;
  seqs.set(stream, seq);
  const timestamp = new Date(opts.at ?? Date.now()).toISOString();
  const event: RaceEvent = {
    id: `${stream}:${seq}`,
    type,
    timestamp,
    stream,
    seq,
    meetingId: opts.meetingId ?? 'meeting-1',
    raceId,
    data,
  };
  return { kind: 'event', stream, seq, timestamp, event };
}

/** Awaits a condition that real I/O will make true, without sleeping a fixed time. */
export async function until(
  cond: () => boolean | Promise<boolean>,
  what = 'condition',
  timeoutMs = 5000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
