/**
 * The WebSocket transport at `/ws` (protocol: docs/protocol.md): authentication, the welcome, client
 * messages and WebSocket pings. Everything about streams (attach, resume, fan-out, limits, heartbeats) is the
 * subscription core's (src/delivery/core/hub.ts); this file only moves bytes and frames.
 */
import websocket from '@fastify/websocket';
import { CloseCode, PROTOCOL_VERSION, SUBPROTOCOL, type WelcomeMessage } from '@racewire/client/protocol';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { WebSocket } from 'ws';
import { authenticate, extractKey } from '../core/auth.js';
import { every } from '../core/heartbeat.js';
import type { DeliveryHub } from '../core/hub.js';
import { outgoing } from '../core/outgoing.js';
import type { Session } from '../core/session.js';
import type { TransportStats } from '../core/stats.js';
import { handleMessage } from './message-handler.js';
import { WebSocketSink } from './ws-sink.js';

export interface WebSocketLimits {
  /** Largest client message answered with an error instead of processed. @default 16384 */
  maxMessageBytes: number;
  /** Frames above this are refused by the ws layer with close 1009. @default 65536 */
  hardMaxPayload: number;
  /** WebSocket ping interval (wall clock); a connection that did not pong by the next ping is terminated. @default 30000 */
  pingIntervalMs: number;
}

export const DEFAULT_WS_LIMITS: WebSocketLimits = {
  maxMessageBytes: 16 * 1024,
  hardMaxPayload: 64 * 1024,
  pingIntervalMs: 30_000,
};

export interface GatewayDeps {
  hub: DeliveryHub;
  logger: Logger;
  limits?: Partial<WebSocketLimits>;
}

export interface GatewayStats extends TransportStats {
  deadTerminations: number;
  rejectedAuth: number;
  clientErrors: number;
}

export interface WebSocketGateway {
  stats(): GatewayStats;
  /** Closes every socket with 1001 (going away) and stops pinging. */
  close(): Promise<void>;
}

export async function registerWebSocketGateway(
  app: FastifyInstance,
  deps: GatewayDeps,
): Promise<WebSocketGateway> {
  const limits: WebSocketLimits = { ...DEFAULT_WS_LIMITS, ...deps.limits };
  const { hub, logger } = deps;
  const own = { deadTerminations: 0, rejectedAuth: 0, clientErrors: 0 };
  const sockets = new Map<Session, { ws: WebSocket; awaitingPong: boolean }>();
  const stop = new AbortController();

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
    const auth = authenticate(hub.auth, extractKey(req.headers, req.url), req.socket.remoteAddress);
    if (!auth.ok) {
      own.rejectedAuth++;
      ws.close(auth.code === 'rate_limited' ? CloseCode.RateLimited : CloseCode.Unauthorized, auth.message);
      return;
    }
    const opened = hub.open(auth.principal, 'ws', new WebSocketSink(ws));
    if (!opened.ok) {
      ws.close(CloseCode.RateLimited, opened.message);
      return;
    }
    const session = opened.session;
    const entry = { ws, awaitingPong: false };
    sockets.set(session, entry);
    ws.on('pong', () => {
      entry.awaitingPong = false;
    });
    ws.on('message', (data, isBinary) => {
      handleMessage({ hub, session, maxMessageBytes: limits.maxMessageBytes, stats: own }, data, isBinary);
    });
    ws.on('error', (err) => logger.debug({ err, conn: session.id }, 'ws socket error'));
    ws.on('close', () => {
      sockets.delete(session);
      hub.closed(session);
    });
    const welcome: WelcomeMessage = {
      type: 'welcome',
      protocol: PROTOCOL_VERSION,
      connectionId: session.id,
      scope: auth.principal.scope,
      heartbeatMs: hub.limits.heartbeatMs,
      limits: {
        maxMessageBytes: limits.maxMessageBytes,
        messagesPerSecond: hub.limits.messagesPerSecond,
        maxSubscriptions: hub.limits.maxSubscriptions,
      },
    };
    session.sendOne(outgoing(welcome));
  };

  app.get('/ws', { websocket: true }, onConnection);

  const pings = every(hub.wall, limits.pingIntervalMs, stop.signal, () => {
    for (const [session, entry] of sockets) {
      if (session.closed) continue;
      if (entry.awaitingPong) {
        own.deadTerminations++;
        hub.closed(session);
        entry.ws.terminate();
        continue;
      }
      entry.awaitingPong = true;
      try {
        entry.ws.ping();
      } catch {
        // Socket already closing; the close handler cleans up.
      }
    }
  });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stop.abort(new Error('gateway closed'));
      await pings;
      const closed = [...sockets.values()].map(
        ({ ws }) =>
          new Promise<void>((resolve) => {
            if (ws.readyState === ws.CLOSED) return resolve();
            ws.once('close', () => resolve());
            ws.close(CloseCode.GoingAway, 'server going away: reconnect and resume');
            // Do not let one unresponsive peer hold shutdown.
            setTimeout(() => ws.terminate(), 1000).unref();
          }),
      );
      await Promise.all(closed);
    })();
    return closing;
  };
  app.addHook('preClose', async () => close());

  return {
    stats: () => ({ ...hub.stats().ws, ...own }),
    close,
  };
}
