/**
 * `GET /v1/sse`: race and meeting streams as Server-Sent Events, for consumers with only `curl` or
 * `EventSource` (docs/protocol.md, "Server-Sent Events"). A thin transport over the subscription core
 * (src/delivery/core/hub.ts): the same authentication, limits (connections and channels per key, the message
 * rate: one token per channel), attach, fan-out, heartbeats and slow-consumer rule as WebSocket.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { authenticate, extractKey } from '../core/auth.js';
import type { DeliveryHub } from '../core/hub.js';
import type { TransportStats } from '../core/stats.js';
import { parseSseRequest, type SseErrorCode, sseQuerySchema } from './sse-request.js';
import { SseSink } from './sse-sink.js';

export interface SseLimits {
  /** Reconnection delay the client is told (`retry:`). @default 3000 */
  retryMs: number;
}

export const DEFAULT_SSE_LIMITS: SseLimits = { retryMs: 3_000 };

export interface SseDeps {
  hub: DeliveryHub;
  logger: Logger;
  limits?: Partial<SseLimits>;
}

export interface SseStats extends TransportStats {
  /** Requests refused before the stream started (bad request, key). */
  refused: number;
}

export interface SseEndpoint {
  stats(): SseStats;
}

const STATUS: Record<SseErrorCode, number> = {
  bad_request: 400,
  missing_channel: 400,
  too_many_channels: 400,
  unknown_channel: 400,
  bad_last_event_id: 400,
  unauthorized: 401,
  too_many_connections: 429,
  too_many_subscriptions: 429,
  rate_limited: 429,
};

function refuse(reply: FastifyReply, code: SseErrorCode, message: string) {
  return reply.code(STATUS[code]).send({ error: { code, message } });
}

type SseQuery = { channel?: string[]; lastEventId?: string; fields?: string[]; conflateMs?: number };

export async function registerSseEndpoint(app: FastifyInstance, deps: SseDeps): Promise<SseEndpoint> {
  const limits: SseLimits = { ...DEFAULT_SSE_LIMITS, ...deps.limits };
  const { hub, logger } = deps;
  let refused = 0;

  const handler = async (req: FastifyRequest<{ Querystring: SseQuery }>, reply: FastifyReply) => {
    const no = (code: SseErrorCode, message: string) => {
      refused++;
      return refuse(reply, code, message);
    };
    if (req.validationError) return no('bad_request', req.validationError.message);
    const header = req.headers['last-event-id'];
    const parsed = parseSseRequest(
      req.query,
      typeof header === 'string' ? header : undefined,
      hub.limits.maxSubscriptions,
    );
    if (!parsed.ok) return no(parsed.code, parsed.message);
    const auth = authenticate(hub.auth, extractKey(req.headers, req.url), req.socket.remoteAddress);
    if (!auth.ok) return no(auth.code, auth.message);

    const res = reply.raw;
    const { channels, from, options } = parsed.request;
    const opened = hub.open(auth.principal, 'sse', new SseSink(res), channels.length);
    if (!opened.ok) return refuse(reply, opened.code, opened.message);
    const session = opened.session;
    for (const { channel } of channels) {
      const admitted = hub.admitChannel(session, channel);
      if (!admitted.ok) {
        hub.closed(session);
        return refuse(reply, admitted.code, admitted.message);
      }
    }

    reply.hijack();
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no', // nginx: do not buffer the stream
    });
    const socket = req.socket;
    socket.setNoDelay(true);
    res.write(`retry: ${limits.retryMs}\n\n`);
    res.on('close', () => {
      // The client went away: release the half-open socket now (nothing else would end it).
      if (!res.writableEnded) socket.destroy();
      hub.closed(session);
    });
    res.on('error', (err) => logger.debug({ err, conn: session.id }, 'sse response error'));
    hub.defer(() => {
      if (session.closed) return;
      for (const { channel, parsed: ch } of channels) hub.subscribe(session, { channel, ch, options, from });
    });
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

  return { stats: () => ({ ...hub.stats().sse, refused }) };
}
