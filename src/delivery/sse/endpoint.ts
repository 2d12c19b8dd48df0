/**
 * `GET /v1/sse`: race and meeting streams as Server-Sent Events, for consumers with only `curl` or
 * `EventSource` (docs/protocol.md, "Server-Sent Events"). The WebSocket gateway's parts do the work:
 * auth, stream attach (snapshot or resume, then live without gap or duplicate), fan-out and the
 * per-audience serialisation and redaction. This file owns the HTTP response, heartbeats and limits.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticate, extractKey } from '../ws/auth.js';
import { type FanoutDeps, fanOut, subscribeChannel } from '../ws/fanout.js';
import { FrameCache } from '../ws/frame-cache.js';
import type { GatewayDeps } from '../ws/gateway.js';
import { every } from '../ws/heartbeats.js';
import { Registry, subscriberCounts } from '../ws/registry.js';
import type { AttachDeps } from '../ws/stream-attach.js';
import { SseConnection } from './sse-connection.js';
import { parseSseRequest, type SseErrorCode, sseQuerySchema } from './sse-request.js';

export interface SseLimits {
  /** Channels per connection (`channel` parameters). @default 20 */
  maxChannels: number;
  /** Interval of the `: hb <time>` comment. @default 15000 */
  heartbeatMs: number;
  /** Reconnection delay the client is told (`retry:`). @default 3000 */
  retryMs: number;
  /** Bytes buffered for one response before the client is dropped as slow. @default 1 MiB */
  maxBufferedBytes: number;
  /** How long a slow client gets to read the rest before its socket is destroyed. @default 5000 */
  slowCloseGraceMs: number;
  /** Entries per log read when replaying a resume. @default 500 */
  replayPageSize: number;
  /** Serialised replay messages shared between resuming clients. @default 5000 */
  replayCacheEntries: number;
}

export const DEFAULT_SSE_LIMITS: SseLimits = {
  maxChannels: 20,
  heartbeatMs: 15_000,
  retryMs: 3_000,
  maxBufferedBytes: 1024 * 1024,
  slowCloseGraceMs: 5_000,
  replayPageSize: 500,
  replayCacheEntries: 5_000,
};

/** The gateway's dependencies, with SSE limits. */
export type SseDeps = Omit<GatewayDeps, 'limits'> & { limits?: Partial<SseLimits> };

export interface SseStats {
  connections: number;
  connectionsTotal: number;
  slowDisconnects: number;
  rejected: number;
  messagesSent: number;
  bytesSent: number;
}

export interface SseEndpoint {
  /** Subscribers per race id, to add to the gateway's for the poller's priorities. */
  subscriberCounts(into?: Map<string, number>): Map<string, number>;
  stats(): SseStats;
  /** Ends every response and stops the heartbeat. */
  close(): Promise<void>;
}

const STATUS: Record<SseErrorCode, number> = {
  bad_request: 400,
  missing_channel: 400,
  too_many_channels: 400,
  unknown_channel: 400,
  bad_last_event_id: 400,
  unauthorized: 401,
};

function refuse(reply: FastifyReply, code: SseErrorCode, message: string) {
  return reply.code(STATUS[code]).send({ error: { code, message } });
}

export async function registerSseEndpoint(app: FastifyInstance, deps: SseDeps): Promise<SseEndpoint> {
  const limits: SseLimits = { ...DEFAULT_SSE_LIMITS, ...deps.limits };
  const { log, bus, catalog, clock, logger } = deps;
  const registry = new Registry<SseConnection>();
  const responses = new Map<SseConnection, ServerResponse>();
  const stats: SseStats = {
    connections: 0,
    connectionsTotal: 0,
    slowDisconnects: 0,
    rejected: 0,
    messagesSent: 0,
    bytesSent: 0,
  };
  const stop = new AbortController();

  const end = (conn: SseConnection) => {
    conn.closed = true;
    responses.get(conn)?.end();
  };
  const onSlow = (conn: SseConnection) => {
    if (conn.closed) return;
    stats.slowDisconnects++;
    logger.warn({ conn: conn.id, key: conn.principal.name, buffered: conn.buffered() }, 'sse slow consumer');
    const res = responses.get(conn);
    end(conn);
    clock.sleep(limits.slowCloseGraceMs, stop.signal).then(
      () => res?.destroy(),
      () => res?.destroy(),
    );
  };

  const attach: AttachDeps = {
    log,
    pageSize: limits.replayPageSize,
    frames: new FrameCache(limits.replayCacheEntries),
    // SSE has no error message: end the response; the client reconnects and resumes.
    onError: (err, conn, stream) => {
      logger.error({ err, conn: conn.id, stream }, 'sse attach failed');
      end(conn as SseConnection);
    },
  };
  const fanoutDeps: FanoutDeps = { catalog, registry, attach, stats };
  const unsubscribeBus = bus.subscribe((entries) => fanOut(fanoutDeps, entries));

  const handler = async (
    req: FastifyRequest<{ Querystring: { channel?: string[]; lastEventId?: string } }>,
    reply: FastifyReply,
  ) => {
    if (req.validationError) {
      stats.rejected++;
      return refuse(reply, 'bad_request', req.validationError.message);
    }
    const header = req.headers['last-event-id'];
    const parsed = parseSseRequest(
      req.query,
      typeof header === 'string' ? header : undefined,
      limits.maxChannels,
    );
    if (!parsed.ok) {
      stats.rejected++;
      return refuse(reply, parsed.code, parsed.message);
    }
    const auth = authenticate(deps.auth, extractKey(req.headers, req.url), req.socket.remoteAddress);
    if (!auth.ok) {
      stats.rejected++;
      return refuse(reply, 'unauthorized', auth.message);
    }
    if (stop.signal.aborted)
      return reply.code(503).send({ error: { code: 'closing', message: 'server closing' } });

    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no', // nginx: do not buffer the stream
    });
    const socket = req.socket;
    socket.setNoDelay(true);
    res.write(`retry: ${limits.retryMs}\n\n`);
    const conn = new SseConnection(randomUUID(), auth.principal, res, limits.maxBufferedBytes, onSlow);
    registry.all.add(conn);
    responses.set(conn, res);
    stats.connections = registry.all.size;
    stats.connectionsTotal++;
    res.on('close', () => {
      // The client went away: release the half-open socket now (nothing else would end it).
      if (!res.writableEnded) socket.destroy();
      conn.closed = true;
      registry.removeConnection(conn);
      responses.delete(conn);
      stats.connections = registry.all.size;
    });
    for (const { channel, parsed: ch } of parsed.request.channels) {
      subscribeChannel(fanoutDeps, conn, channel, ch, parsed.request.from);
    }
  };

  app.get(
    '/v1/sse',
    {
      attachValidation: true,
      schema: {
        summary: 'Race and meeting streams as Server-Sent Events',
        description:
          'text/event-stream of `snapshot`, `patch`, `event` (and `resumed`) messages; each `id:` holds the ' +
          'position in every stream, so Last-Event-ID resumes them all. See docs/protocol.md.',
        tags: ['streaming'],
        querystring: sseQuerySchema,
      },
    },
    handler,
  );

  const heartbeats = every(clock, limits.heartbeatMs, stop.signal, () => {
    const text = `hb ${new Date(clock.now()).toISOString()}`;
    for (const conn of registry.all) conn.comment(text);
  });

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stop.abort(new Error('sse endpoint closed'));
      unsubscribeBus();
      await heartbeats;
      for (const conn of [...registry.all]) end(conn);
    })();
    return closing;
  };
  app.addHook('preClose', async () => close());

  return {
    subscriberCounts: (into) => subscriberCounts(registry.all, catalog, into),
    stats: () => ({ ...stats }),
    close,
  };
}
