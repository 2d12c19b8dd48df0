/**
 * Serves a recording as the racing API, on its own clock: each request is answered with the latest response
 * recorded for that request (method, path and query, in any order) at or before the clock's instant, with
 * its recorded status (a recorded 404 is a 404), headers and body. A request with no recorded response at
 * that instant gets 404 `{"error": "not_recorded", ...}` with `x-replay: miss`, so it is never mistaken for
 * data. `GET /__replay` reports where the replay stands.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import { API_PREFIX } from '../simulator/api-routes.js';
import { sortedQuery } from './exchange.js';
import type { ReplayStore } from './replay-store.js';

export interface ReplayServer {
  app: FastifyInstance;
  /** Listens and returns the base URL (including the API prefix). */
  listen(opts?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
  stats(): { hits: number; misses: number };
}

export async function createReplayServer(opts: {
  store: ReplayStore;
  clock: Clock;
  logger: Logger;
}): Promise<ReplayServer> {
  const { store, clock } = opts;
  const counts = { hits: 0, misses: 0 };
  const app = Fastify({
    loggerInstance: opts.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // Closing ends every connection at once: a client's half-used keep-alive socket would otherwise hold
    // close() for the keep-alive timeout (72 s).
    forceCloseConnections: true,
  }) as unknown as FastifyInstance;

  app.get(`${API_PREFIX}/*`, async (req, reply) => {
    const url = new URL(req.url, 'http://replay');
    const path = url.pathname.slice(API_PREFIX.length);
    const now = clock.now();
    const answer = await store.answer(req.method, path, sortedQuery(url.searchParams), now);
    if (!answer) {
      counts.misses++;
      return reply
        .code(404)
        .header('content-type', 'application/json; charset=utf-8')
        .header('x-replay', 'miss')
        .send(
          JSON.stringify({
            error: 'not_recorded',
            message: `no response recorded for ${req.method} ${url.pathname}${url.search} at or before ${new Date(now).toISOString()}`,
          }),
        );
    }
    counts.hits++;
    return reply
      .code(answer.status)
      .headers(answer.headers)
      .header('x-replay', 'hit')
      .header('x-replay-recorded-at', new Date(answer.at).toISOString())
      .send(answer.body);
  });
  app.get('/__replay', async () => {
    const s = store.stats();
    return {
      now: new Date(clock.now()).toISOString(),
      recordsRead: s.records,
      requestsKnown: s.requests,
      lastRecordAt: s.lastAt === undefined ? null : new Date(s.lastAt).toISOString(),
      ended: s.ended,
      ...counts,
    };
  });
  await app.ready();

  return {
    app,
    async listen(o = {}) {
      const address = await app.listen({ port: o.port ?? 0, host: o.host ?? '127.0.0.1' });
      return `${address.replace('[::1]', 'localhost')}${API_PREFIX}`;
    },
    close: () => app.close(),
    stats: () => ({ ...counts }),
  };
}
