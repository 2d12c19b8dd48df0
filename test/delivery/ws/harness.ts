/** A real fastify server with the gateway on an ephemeral loopback port, fed like the pipeline feeds it. */

import fjp from 'fast-json-patch';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import WebSocket from 'ws';
import { type Bus, createMemoryBus } from '../../../src/bus/bus.js';
import { createManualClock, type ManualClock } from '../../../src/clock.js';
import type { ApiKey, AuthConfig } from '../../../src/delivery/ws/auth.js';
import type { CatalogRace, RaceCatalog } from '../../../src/delivery/ws/catalog.js';
import {
  type GatewayLimits,
  registerWebSocketGateway,
  type WebSocketGateway,
} from '../../../src/delivery/ws/gateway.js';
import type { ServerMessage } from '../../../src/delivery/ws/messages.js';
import type { NewEntry } from '../../../src/events/envelope.js';
import { createMemoryEventLog, type MemoryEventLogOptions } from '../../../src/store/memory-event-log.js';
import type { EventLog } from '../../../src/store/ports.js';

export const PARTNER_KEY = 'partner-secret-key';
export const PUBLIC_KEY = 'public-key';

export interface Harness {
  app: FastifyInstance;
  url: string;
  log: EventLog;
  bus: Bus;
  clock: ManualClock;
  gateway: WebSocketGateway;
  catalog: RaceCatalog & { races: Map<string, CatalogRace>; stale: Map<string, number> };
  docs: Map<string, unknown>;
  /** Appends the change from the stream's current document to `next` (patch, or snapshot first) and publishes. */
  publishDoc(stream: string, next: unknown, events?: Array<{ type: string; data: unknown }>): Promise<void>;
  publishEvent(stream: string, type: string, data: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(
  opts: {
    limits?: Partial<GatewayLimits>;
    logOptions?: MemoryEventLogOptions;
    allowAnonymous?: boolean;
  } = {},
): Promise<Harness> {
  const app = Fastify();
  const log = createMemoryEventLog(opts.logOptions);
  const bus = createMemoryBus((err) => {
    throw err;
  });
  const clock = createManualClock(Date.parse('2026-11-22T10:00:00Z'));
  const races = new Map<string, CatalogRace>();
  const stale = new Map<string, number>();
  const catalog = {
    races,
    stale,
    race: (id: string) => races.get(id),
    racesOfMeeting: (m: string) => [...races.values()].filter((r) => r.meetingId === m).map((r) => r.raceId),
    staleness: (id: string) => stale.get(id),
  };
  const keys = new Map<string, ApiKey>([
    [PARTNER_KEY, { name: 'partner', scope: 'partner' }],
    [PUBLIC_KEY, { name: 'public', scope: 'public' }],
  ]);
  const auth: AuthConfig = { allowAnonymous: opts.allowAnonymous ?? true, keys };
  const gateway = await registerWebSocketGateway(app, {
    log,
    bus,
    catalog,
    clock,
    logger: pino({ level: 'silent' }),
    auth,
    limits: opts.limits,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  const docs = new Map<string, unknown>();
  const meetingOf = (stream: string) => races.get(stream)?.meetingId ?? 'M1';

  const append = async (stream: string, entries: NewEntry[], document?: unknown) => {
    const stored = await log.append(stream, { entries, document, now: new Date(clock.now()) });
    bus.publish(stored);
  };

  return {
    app,
    url: `ws://127.0.0.1:${address.port}/ws`,
    log,
    bus,
    clock,
    gateway,
    catalog,
    docs,
    async publishDoc(stream, next, events = []) {
      const prev = docs.get(stream);
      const entries: NewEntry[] = [];
      if (prev === undefined) entries.push({ kind: 'snapshot', document: next });
      else entries.push({ kind: 'patch', ops: fjp.compare(prev as object, next as object) });
      for (const e of events) {
        entries.push({
          kind: 'event',
          event: { type: e.type, meetingId: meetingOf(stream), raceId: stream, data: e.data },
        });
      }
      docs.set(stream, structuredClone(next));
      await append(stream, entries, next);
    },
    async publishEvent(stream, type, data) {
      const raceId = stream.startsWith('meeting:') ? undefined : stream;
      const meetingId = raceId ? meetingOf(stream) : stream.slice('meeting:'.length);
      await append(stream, [{ kind: 'event', event: { type, meetingId, raceId, data } }]);
    },
    async close() {
      await gateway.close();
      await app.close();
    },
  };
}

/** A ws client that queues parsed messages and lets a test await the next one matching a predicate. */
export class TestClient {
  readonly ws: WebSocket;
  readonly received: ServerMessage[] = [];
  private cursor = 0;
  private waiters: Array<() => void> = [];
  closeCode: number | undefined;
  readonly closed: Promise<number>;

  constructor(url: string, options: WebSocket.ClientOptions & { protocols?: string[] } = {}) {
    this.ws = new WebSocket(url, options.protocols ?? [], options);
    this.ws.on('message', (data) => {
      this.received.push(JSON.parse(data.toString()) as ServerMessage);
      this.wake();
    });
    this.closed = new Promise((resolve) => {
      this.ws.on('close', (code) => {
        this.closeCode = code;
        this.wake();
        resolve(code);
      });
    });
    this.ws.on('error', () => {});
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** Sends now, or once the socket opens (messages keep their order). */
  send(msg: unknown) {
    const text = typeof msg === 'string' ? msg : JSON.stringify(msg);
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send(text);
    else this.ws.once('open', () => this.ws.send(text));
  }

  /** The next unread message matching `pred` (messages before it are consumed too). */
  async next<T extends ServerMessage = ServerMessage>(
    pred: (m: ServerMessage) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.received.length) {
        const m = this.received[this.cursor++]!;
        if (pred(m)) return m as T;
      }
      if (this.closeCode !== undefined) throw new Error(`socket closed (${this.closeCode}) while waiting`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a message');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits until some message received so far or later matches `pred`, regardless of the read cursor. */
  async seen<T extends ServerMessage = ServerMessage>(pred: (m: ServerMessage) => boolean, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(pred);
      if (found) return found as T;
      if (this.closeCode !== undefined) throw new Error(`socket closed (${this.closeCode}) while waiting`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a message');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  async nextOfType<K extends ServerMessage['type']>(type: K, timeoutMs?: number) {
    return this.next<Extract<ServerMessage, { type: K }>>((m) => m.type === type, timeoutMs);
  }

  close() {
    this.ws.close();
  }
}

export function raceDoc(raceId: string, n: number, extra: Record<string, unknown> = {}) {
  return {
    race: {
      event_id: raceId,
      meeting_id: 'M1',
      country: 'AUS',
      type: 'T',
      status: 'Open',
      class: 'BM70',
      ...extra,
    },
    runners: {
      E1: {
        entrant_id: 'E1',
        name: 'Alpha',
        barrier: 1,
        form_comment: 'kept for partners',
        odds: { win: 2 + n / 10 },
      },
      E2: { entrant_id: 'E2', name: 'Bravo', barrier: 2, last_starts: '1x21', odds: { win: 5 + n / 10 } },
    },
  };
}

export function addRace(h: Harness, raceId: string, meetingId = 'M1', country = 'AUS', category = 'T') {
  h.catalog.races.set(raceId, {
    raceId,
    meetingId,
    country,
    category,
    status: 'Open',
    startTime: h.clock.now(),
  });
}
