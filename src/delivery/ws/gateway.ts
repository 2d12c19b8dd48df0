/**
 * The WebSocket gateway at `/ws` (protocol: docs/protocol.md). Connections subscribe to races, meetings or
 * a filtered firehose; the bus feeds live entries, the log feeds snapshots and resumes. Sockets, timers and
 * fastify live here; the protocol decisions sit in small pure modules beside it.
 */
import { randomUUID } from 'node:crypto';
import websocket from '@fastify/websocket';
import { CloseCode, SUBPROTOCOL, type WelcomeMessage } from '@racewire/client/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import type { Bus } from '../../bus/bus.js';
import type { Clock } from '../../clock.js';
import type { EventLog } from '../../store/ports.js';
import { type AuthConfig, authenticate, extractKey, TokenBucket } from './auth.js';
import type { RaceCatalog } from './catalog.js';
import { Connection } from './connection.js';
import { type FanoutDeps, fanOut } from './fanout.js';
import { FrameCache } from './frame-cache.js';
import { createHeartbeats } from './heartbeats.js';
import { handleMessage } from './message-handler.js';
import { Registry, subscriberCounts } from './registry.js';
import type { AttachDeps } from './stream-attach.js';

export interface GatewayLimits {
  /** Largest client message answered with an error instead of processed. @default 16384 */
  maxMessageBytes: number;
  /** Frames above this are refused by the ws layer with close 1009. @default 65536 */
  hardMaxPayload: number;
  /** Per-connection send buffer; past it the client is disconnected as slow (4008). @default 1 MiB */
  maxBufferedBytes: number;
  /** Client messages per second per API key (anonymous: per address). @default 20 */
  messagesPerSecond: number;
  /** Burst allowance of the message rate. @default 40 */
  messageBurst: number;
  /** Open connections per API key (anonymous: per address). @default 100 */
  maxConnectionsPerKey: number;
  /** Channels per connection. @default 200 */
  maxSubscriptions: number;
  /** Application heartbeat interval. @default 15000 */
  heartbeatMs: number;
  /** WebSocket ping interval; a connection that did not pong by the next ping is terminated. @default 30000 */
  pingIntervalMs: number;
  /** How long a slow consumer gets to read its close frame before the socket is destroyed. @default 5000 */
  slowCloseGraceMs: number;
  /** Entries per log read when replaying a resume. @default 500 */
  replayPageSize: number;
  /** Serialised replay messages kept to share between resuming clients (0: none). @default 20000 */
  replayCacheEntries: number;
}

export const DEFAULT_LIMITS: GatewayLimits = {
  maxMessageBytes: 16 * 1024,
  hardMaxPayload: 64 * 1024,
  maxBufferedBytes: 1024 * 1024,
  messagesPerSecond: 20,
  messageBurst: 40,
  maxConnectionsPerKey: 100,
  maxSubscriptions: 200,
  heartbeatMs: 15_000,
  pingIntervalMs: 30_000,
  slowCloseGraceMs: 5_000,
  replayPageSize: 500,
  replayCacheEntries: 20_000,
};

export interface GatewayDeps {
  log: EventLog;
  bus: Bus;
  catalog: RaceCatalog;
  clock: Clock;
  logger: Logger;
  auth: AuthConfig;
  limits?: Partial<GatewayLimits>;
}

export interface GatewayStats {
  connections: number;
  connectionsTotal: number;
  slowDisconnects: number;
  deadTerminations: number;
  rejectedAuth: number;
  rejectedRate: number;
  messagesSent: number;
  bytesSent: number;
  clientErrors: number;
}

export interface WebSocketGateway {
  /** Subscribers per race id (a meeting subscription counts for each of its races). */
  subscriberCounts(): ReadonlyMap<string, number>;
  stats(): GatewayStats;
  /** Closes every socket with 1001 (going away) and stops the timers. */
  close(): Promise<void>;
}

export async function registerWebSocketGateway(
  app: FastifyInstance,
  deps: GatewayDeps,
): Promise<WebSocketGateway> {
  const limits: GatewayLimits = { ...DEFAULT_LIMITS, ...deps.limits };
  const { log, bus, catalog, clock, logger } = deps;
  const registry = new Registry();
  const connections = registry.all;
  const perKey = new Map<string, { count: number; bucket: TokenBucket }>();
  const stats: GatewayStats = {
    connections: 0,
    connectionsTotal: 0,
    slowDisconnects: 0,
    deadTerminations: 0,
    rejectedAuth: 0,
    rejectedRate: 0,
    messagesSent: 0,
    bytesSent: 0,
    clientErrors: 0,
  };
  const stop = new AbortController();

  const onSlow = (conn: Connection) => {
    if (conn.closed) return;
    conn.closed = true;
    stats.slowDisconnects++;
    logger.warn({ conn: conn.id, key: conn.principal.name, buffered: conn.buffered() }, 'ws slow consumer');
    conn.ws.close(CloseCode.SlowConsumer, 'slow consumer: reconnect and resume');
    clock.sleep(limits.slowCloseGraceMs, stop.signal).then(
      () => conn.ws.terminate(),
      () => conn.ws.terminate(),
    );
  };

  // Coalesces writes: connections with queued frames are flushed together once per event-loop turn.
  let dirty: Connection[] = [];
  const flushAll = () => {
    const list = dirty;
    dirty = [];
    for (const c of list) c.flush();
  };
  const schedule = (conn: Connection) => {
    if (dirty.length === 0) setImmediate(flushAll);
    dirty.push(conn);
  };

  const attachDeps: AttachDeps = {
    log,
    pageSize: limits.replayPageSize,
    frames: new FrameCache(limits.replayCacheEntries),
    onError: (err, conn, stream) => {
      logger.error({ err, conn: conn.id, stream }, 'ws attach failed');
      conn.sendOne({ type: 'error', code: 'internal', message: `could not load stream ${stream}` });
    },
  };
  const fanoutDeps: FanoutDeps = { catalog, registry, attach: attachDeps, stats };
  const unsubscribeBus = bus.subscribe((entries) => fanOut(fanoutDeps, entries));

  if (!app.hasDecorator('websocketServer')) {
    await app.register(websocket, {
      options: {
        maxPayload: limits.hardMaxPayload,
        perMessageDeflate: false,
        handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
      },
    });
  }

  const onConnection = (ws: WebSocket, req: FastifyRequest) => {
    const key = extractKey(req.headers, req.url);
    const auth = authenticate(deps.auth, key, req.socket.remoteAddress);
    if (!auth.ok) {
      stats.rejectedAuth++;
      ws.close(CloseCode.Unauthorized, auth.message);
      return;
    }
    const principal = auth.principal;
    let slot = perKey.get(principal.name);
    if (!slot) {
      slot = { count: 0, bucket: new TokenBucket(limits.messagesPerSecond, limits.messageBurst, clock.now) };
      perKey.set(principal.name, slot);
    }
    if (slot.count >= limits.maxConnectionsPerKey) {
      stats.rejectedRate++;
      ws.close(CloseCode.RateLimited, 'too many connections for this key');
      return;
    }
    slot.count++;
    const conn = new Connection(randomUUID(), principal, ws, limits.maxBufferedBytes, onSlow, schedule);
    connections.add(conn);
    stats.connections = connections.size;
    stats.connectionsTotal++;
    const bucket = slot.bucket;

    ws.on('pong', () => {
      conn.awaitingPong = false;
    });
    ws.on('message', (data, isBinary) => {
      handleMessage(
        { conn, limits, catalog, registry, attach: attachDeps, stats, bucket, now: clock.now },
        data,
        isBinary,
      );
    });
    ws.on('error', (err) => logger.debug({ err, conn: conn.id }, 'ws socket error'));
    ws.on('close', () => {
      conn.closed = true;
      registry.removeConnection(conn);
      stats.connections = connections.size;
      const s = perKey.get(principal.name);
      if (s && --s.count <= 0) perKey.delete(principal.name);
    });

    const welcome: WelcomeMessage = {
      type: 'welcome',
      protocol: 1,
      connectionId: conn.id,
      scope: principal.scope,
      heartbeatMs: limits.heartbeatMs,
      limits: {
        maxMessageBytes: limits.maxMessageBytes,
        messagesPerSecond: limits.messagesPerSecond,
        maxSubscriptions: limits.maxSubscriptions,
      },
    };
    conn.sendOne(welcome);
  };

  app.get('/ws', { websocket: true }, onConnection);

  const heartbeats = createHeartbeats({ clock, catalog, connections, limits, stats, signal: stop.signal });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stop.abort(new Error('gateway closed'));
      unsubscribeBus();
      await heartbeats.done;
      const closed = [...connections].map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.ws.readyState === c.ws.CLOSED) return resolve();
            c.ws.once('close', () => resolve());
            c.closed = true;
            c.ws.close(CloseCode.GoingAway, 'server going away: reconnect and resume');
            // Do not let one unresponsive peer hold shutdown.
            setTimeout(() => c.ws.terminate(), 1000).unref();
          }),
      );
      await Promise.all(closed);
    })();
    return closing;
  };
  app.addHook('preClose', async () => close());

  return {
    subscriberCounts: () => subscriberCounts(connections, catalog),
    stats: () => ({ ...stats }),
    close,
  };
}
