/** A real fastify server with the gateway on an ephemeral loopback port, fed like the pipeline feeds it. */

import type { ServerMessage } from '@racewire/client/protocol';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import WebSocket from 'ws';
import type { AuthConfig } from '../../../src/delivery/core/auth.js';
import { DeliveryHub } from '../../../src/delivery/core/hub.js';
import type { DeliveryLimits } from '../../../src/delivery/core/limits.js';
import {
  registerWebSocketGateway,
  type WebSocketGateway,
  type WebSocketLimits,
} from '../../../src/delivery/ws/gateway.js';
import type { MemoryEventLogOptions } from '../../../src/store/memory-event-log.js';
import { createFeed, type Feed, PARTNER_KEY, testKeys } from '../feed.js';

export { PARTNER_KEY, PUBLIC_KEY } from '../feed.js';

export interface Harness extends Feed {
  app: FastifyInstance;
  url: string;
  gateway: WebSocketGateway;
  hub: DeliveryHub;
  close(): Promise<void>;
}

export type HarnessLimits = Partial<DeliveryLimits & WebSocketLimits>;

/** A hub on the feed, with the feed's manual clock as its wall clock. */
export function createHub(
  feed: Feed,
  opts: { limits?: Partial<DeliveryLimits>; allowAnonymous?: boolean } = {},
) {
  const auth: AuthConfig = { allowAnonymous: opts.allowAnonymous ?? true, keys: testKeys() };
  return new DeliveryHub({
    log: feed.log,
    bus: feed.bus,
    catalog: feed.catalog,
    wall: feed.clock,
    logger: pino({ level: 'silent' }),
    auth,
    limits: opts.limits,
  });
}

export async function startHarness(
  opts: { limits?: HarnessLimits; logOptions?: MemoryEventLogOptions; allowAnonymous?: boolean } = {},
): Promise<Harness> {
  const app = Fastify();
  const feed = createFeed(opts.logOptions);
  const hub = createHub(feed, opts);
  const gateway = await registerWebSocketGateway(app, {
    hub,
    logger: pino({ level: 'silent' }),
    limits: opts.limits,
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return {
    ...feed,
    app,
    url: `ws://127.0.0.1:${address.port}/ws`,
    gateway,
    hub,
    async close() {
      await gateway.close();
      await hub.close();
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

/** The clients a test file opens, so one `terminateAll` (in its afterEach) closes every one left open. */
export function clientPool() {
  const open: TestClient[] = [];
  const client = (url: string, options?: ConstructorParameters<typeof TestClient>[1]) => {
    const c = new TestClient(url, options);
    open.push(c);
    return c;
  };
  return {
    client,
    /** A client with the partner token on the server at `url`. */
    partner: (url: string) => client(`${url}?token=${PARTNER_KEY}`),
    terminateAll() {
      for (const c of open.splice(0)) c.ws.terminate();
    },
  };
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

export function addRace(h: Feed, raceId: string, meetingId = 'M1', country = 'AUS', category = 'T') {
  h.catalog.races.set(raceId, {
    raceId,
    meetingId,
    country,
    category,
    status: 'Open',
    startTime: h.clock.now(),
  });
}
