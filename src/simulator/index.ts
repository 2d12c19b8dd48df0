/**
 * The racing API simulator: the default upstream of racewire and the ground of its tests.
 * Seeded race days (the real timetable laid onto the configured day, the day before and the days after)
 * served over fastify with the real API's shapes, its own rate limit, fault injection, the silk images
 * its payloads link to, and a control API under /__sim.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import pino from 'pino';
import type { Clock } from '../clock.js';
import { API_PREFIX, registerApiRoutes } from './api-routes.js';
import { dayStart, LAST_START_OFFSET } from './calendar.js';
import { DAY } from './changes.js';
import { registerControlRoutes } from './control-routes.js';
import { createFaultQueue, type FaultControl } from './faults.js';
import type { SimChange } from './model.js';
import { createSlidingWindow, type RateDecision } from './rate-limit.js';
import { registerSilkRoutes } from './silks.js';
import { SimWorld } from './world.js';

export { API_PREFIX } from './api-routes.js';
export type { SimBet } from './bets.js';
export type { FaultControl, FaultKind, FaultSpec } from './faults.js';
export type { ChangeType, SimChange } from './model.js';
export { type RaceView, SimWorld, SimWorldError } from './world.js';

export interface SimulatorOptions {
  seed?: number;
  clock: Clock;
  day?: Date | string;
  rateLimit?: { perMinute: number } | false;
  logger?: pino.Logger;
  /**
   * Base URL of the silk images the payloads link to (the simulator serves them under /silks). Default:
   * http:// and the Host the request came with, so links work however the simulator was reached.
   */
  silkBaseUrl?: string;
  /**
   * Sees every request to the racing API's paths as it arrives (tests audit the budget with it); `query` is
   * the URL's search part (`?date_from=...`, or empty), which tells one /meetings page from another; `from`
   * the caller's From header (tests name each node with it), or empty.
   */
  onApiRequest?: (request: { path: string; query: string; from: string; at: number }) => void;
}

export interface Simulator {
  app: FastifyInstance;
  world: SimWorld;
  faults: FaultControl;
  journal(): SimChange[];
  listen(opts?: { port?: number; host?: string }): Promise<string>;
  close(): Promise<void>;
}

/** With no limit configured, the headers still go out, saying so with a very large limit. */
const UNLIMITED: RateDecision = { allowed: true, limit: 1_000_000, remaining: 1_000_000, resetSeconds: 0 };

/**
 * The UTC day of `now`, or the next day once `now` is past that day's last race (the real timetable ends at
 * 17:02 UTC), so that a live run always has racing ahead of it.
 */
export function defaultDay(now: number): number {
  const day = dayStart(now);
  return now > day + LAST_START_OFFSET ? day + DAY : day;
}

export async function createSimulator(opts: SimulatorOptions): Promise<Simulator> {
  const { clock } = opts;
  const logger = opts.logger ?? pino({ level: 'silent' });
  const seed = opts.seed ?? 1;
  const day = opts.day === undefined ? defaultDay(clock.now()) : dayStart(opts.day);
  const world = new SimWorld(seed, day, clock);
  const faults = createFaultQueue();
  const rateLimit = opts.rateLimit ?? { perMinute: 120 };
  const window = rateLimit ? createSlidingWindow(rateLimit.perMinute, clock) : undefined;
  const closing = new AbortController();

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    // A client's pooled connection that never sent a request is not idle to Node, so close() would wait for
    // it (the headers timeout): a simulator that closes ends every connection.
    forceCloseConnections: true,
  }) as unknown as FastifyInstance;
  if (opts.onApiRequest) {
    const observe = opts.onApiRequest;
    app.addHook('onRequest', async (req) => {
      const [path = '', query] = req.url.split('?', 2);
      if (path.startsWith(API_PREFIX)) {
        const from = typeof req.headers.from === 'string' ? req.headers.from : '';
        observe({
          path: path.slice(API_PREFIX.length),
          query: query ? `?${query}` : '',
          from,
          at: clock.now(),
        });
      }
    });
  }
  registerApiRoutes(app, {
    world,
    clock,
    faults,
    rate: window ? () => window.hit() : () => UNLIMITED,
    silkBaseUrl: opts.silkBaseUrl?.replace(/\/+$/, ''),
    closing: closing.signal,
  });
  registerSilkRoutes(app, (id) => world.race(id));
  registerControlRoutes(app, world, faults);
  app.setNotFoundHandler((req, reply) =>
    reply.code(404).send({ error: 'not_found', message: `no route ${req.method} ${req.url.split('?')[0]}` }),
  );
  await app.ready();
  logger.debug(
    { seed, day: new Date(day).toISOString().slice(0, 10), days: 3, races: world.races.length },
    'simulator ready',
  );

  return {
    app,
    world,
    faults,
    journal: () => world.journal(),
    async listen(o = {}) {
      const address = await app.listen({ port: o.port ?? 0, host: o.host ?? '127.0.0.1' });
      return `${address.replace('[::1]', 'localhost')}${API_PREFIX}`;
    },
    async close() {
      closing.abort();
      await app.close();
    },
  };
}
