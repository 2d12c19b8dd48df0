/** The real fastify app (with OpenAPI) and the SSE endpoint on an ephemeral loopback port. */
import http from 'node:http';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type { CatalogRace } from '../../../src/delivery/core/catalog.js';
import type { DeliveryHub } from '../../../src/delivery/core/hub.js';
import type { DeliveryLimits } from '../../../src/delivery/core/limits.js';
import { registerSseEndpoint, type SseEndpoint, type SseLimits } from '../../../src/delivery/sse/endpoint.js';
import { registerWebSocketGateway } from '../../../src/delivery/ws/gateway.js';
import { buildApp } from '../../../src/http/app.js';
import type { MemoryEventLogOptions } from '../../../src/store/memory-event-log.js';
import { createFeed, type Feed } from '../feed.js';
import { createHub } from '../ws/harness.js';

export { PARTNER_KEY, PUBLIC_KEY } from '../feed.js';
export { raceDoc } from '../ws/harness.js';

export interface SseHarness extends Feed {
  app: FastifyInstance;
  base: string;
  endpoint: SseEndpoint;
  hub: DeliveryHub;
  races: Map<string, CatalogRace>;
  addRace(raceId: string, meetingId?: string): void;
  close(): Promise<void>;
}

export async function startSse(
  opts: {
    limits?: Partial<SseLimits & DeliveryLimits>;
    logOptions?: MemoryEventLogOptions;
    listen?: boolean;
    /** Also serve WebSocket at /ws on the same hub (shared limits). */
    webSocket?: boolean;
  } = {},
): Promise<SseHarness> {
  const logger = pino({ level: 'silent' });
  const app = await buildApp({ logger });
  const feed = createFeed(opts.logOptions);
  const hub = createHub(feed, { limits: opts.limits });
  const endpoint = await registerSseEndpoint(app, { hub, logger, limits: opts.limits });
  if (opts.webSocket) await registerWebSocketGateway(app, { hub, logger });
  let base = '';
  if (opts.listen !== false) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no address');
    base = `http://127.0.0.1:${address.port}`;
  } else await app.ready();
  const races = feed.catalog.races;
  return {
    ...feed,
    app,
    base,
    endpoint,
    hub,
    races,
    addRace(raceId, meetingId = 'M1') {
      races.set(raceId, { raceId, meetingId, country: 'AUS', category: 'T', status: 'Open', startTime: 0 });
    },
    async close() {
      await hub.close();
      await app.close();
    },
  };
}

/** One parsed SSE block: an event (with its fields) or a comment. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  retry?: number;
  comment?: string;
}

/** Parses complete blocks from `buffer`; returns them and the unparsed rest. */
export function parseSse(buffer: string): { messages: SseMessage[]; rest: string } {
  const messages: SseMessage[] = [];
  let rest = buffer;
  for (let end = rest.indexOf('\n\n'); end >= 0; end = rest.indexOf('\n\n')) {
    const block = rest.slice(0, end);
    rest = rest.slice(end + 2);
    const m: SseMessage = {};
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) m.comment = line.slice(1).trim();
      const colon = line.indexOf(':');
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') m.id = value;
      else if (field === 'event') m.event = value;
      else if (field === 'data') m.data = m.data === undefined ? value : `${m.data}\n${value}`;
      else if (field === 'retry') m.retry = Number(value);
    }
    messages.push(m);
  }
  return { messages, rest };
}

/**
 * A streaming SSE reader over `fetch` (like a browser EventSource, which keeps `lastEventId`) or over
 * node:http (like curl). Messages queue up; a test awaits the next one matching a predicate.
 */
export class SseClient {
  readonly messages: SseMessage[] = [];
  lastEventId = '';
  status = 0;
  ended = false;
  private cursor = 0;
  private text = '';
  private waiters: Array<() => void> = [];
  private readonly abort = new AbortController();
  readonly ready: Promise<void>;

  constructor(url: string, opts: { headers?: Record<string, string>; transport?: 'fetch' | 'http' } = {}) {
    const headers = { accept: 'text/event-stream', ...opts.headers };
    this.ready = opts.transport === 'http' ? this.viaHttp(url, headers) : this.viaFetch(url, headers);
    this.ready.catch(() => {});
  }

  private feed(chunk: string) {
    const { messages, rest } = parseSse(this.text + chunk);
    this.text = rest;
    for (const m of messages) {
      if (m.id !== undefined) this.lastEventId = m.id;
      this.messages.push(m);
    }
    this.wake();
  }

  private finish() {
    this.ended = true;
    this.wake();
  }

  private async viaFetch(url: string, headers: Record<string, string>) {
    const res = await fetch(url, { headers, signal: this.abort.signal });
    this.status = res.status;
    const body = res.body;
    if (!body) return this.finish();
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          this.feed(value);
        }
      } catch {
        // aborted
      }
      this.finish();
    })();
  }

  private response: http.IncomingMessage | undefined;

  /** Stops reading (node:http transport): the server's buffer for this client grows. */
  pause() {
    this.response?.pause();
  }

  resume() {
    this.response?.resume();
  }

  private viaHttp(url: string, headers: Record<string, string>) {
    return new Promise<void>((resolve, reject) => {
      const req = http.get(url, { headers, signal: this.abort.signal }, (res) => {
        this.status = res.statusCode ?? 0;
        this.response = res;
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => this.feed(chunk));
        res.on('end', () => this.finish());
        res.on('error', () => this.finish());
        resolve();
      });
      req.on('error', (err) => {
        this.finish();
        reject(err);
      });
    });
  }

  private wake() {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  /** The next unread message matching `pred` (messages before it are consumed). */
  async next(pred: (m: SseMessage) => boolean = (m) => m.event !== undefined, timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      while (this.cursor < this.messages.length) {
        const m = this.messages[this.cursor++]!;
        if (pred(m)) return m;
      }
      if (this.ended) throw new Error('stream ended while waiting');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for an SSE message');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** The next event's parsed data. */
  async nextData<T = Record<string, unknown>>(): Promise<{ id?: string; event?: string; data: T }> {
    const m = await this.next();
    return { id: m.id, event: m.event, data: JSON.parse(m.data ?? 'null') as T };
  }

  /** Waits for the end of the stream (server closed it). */
  async waitEnd(timeoutMs = 5000) {
    const deadline = Date.now() + timeoutMs;
    while (!this.ended) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for the end');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close() {
    this.abort.abort();
  }
}
