/**
 * The racing API's routes (/affiliates/v1/racing/...): envelope, validation, errors, the simulator's own
 * rate limit with X-RateLimit-* headers on every response, and injected faults.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { type ApiError, type ErrorShape, errorBody, rateLimitBody } from './api-errors.js';
import { BETS_LIMIT, type EventOptions, eventBytes } from './event-payload.js';
import type { ArmedFault, FaultQueue } from './faults.js';
import { faultedMeetingsRequest, type Query, readMeetingsQuery, selectMeetings } from './meetings-query.js';
import { isoNano, meetingRecord, raceA } from './payloads.js';
import type { RateDecision } from './rate-limit.js';
import { toteTick } from './tote.js';
import type { SimWorld } from './world.js';

export const API_PREFIX = '/affiliates/v1/racing';
/**
 * Bytes of serialised event payloads kept (~200 KB each, so about 40): the count bound it replaces, 150
 * payloads, held 29 MB of the demo's heap (issue 23).
 */
const EVENT_CACHE_BYTES = 8 * 1024 * 1024;

interface Deps {
  world: SimWorld;
  clock: Clock;
  faults: FaultQueue;
  rate: (() => RateDecision) | undefined;
  /** Base URL of the silk images in payloads; default: http:// and the request's Host. */
  silkBaseUrl: string | undefined;
  /** Aborted on close so slow responses end. */
  closing: AbortSignal;
}

/** Outcome of an operation: a JSON payload (object, or data serialised as UTF-8 once) or an error. */
type Outcome =
  | { title: string; params: Record<string, unknown> | undefined; data: Record<string, unknown> | Buffer }
  | { title: string; error: ApiError };

const flag = (q: Query, name: string) => q[name] === 'true' || q[name] === '1';
const notFound = (title: string, what: string): Outcome => ({
  title,
  error: { status: 404, code: 'not_found', message: `${what} not found` },
});
const HOST = /^[A-Za-z0-9.:[\]-]{1,100}$/;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: a table of routes, each a schema and a short handler: the simulated API's surface read in one place
export function registerApiRoutes(app: FastifyInstance, deps: Deps): void {
  const { world, clock } = deps;
  /**
   * Latest serialised `data` per (race, options, silk base), keyed by what it is a function of. Kept as UTF-8
   * bytes: encoding the ~200 KB string again for every response cost as much as building the payload
   * (docs/benchmarks.md, the soak's CPU per request).
   */
  const eventCache = new Map<string, { stamp: string; data: Buffer }>();
  let eventCacheBytes = 0;

  const meetings = (q: Query, fault: ArmedFault | undefined): Outcome => {
    const now = clock.now();
    const title = 'Race Meetings';
    const asked = readMeetingsQuery(q, now, world.availableDays(now));
    if (typeof asked === 'string')
      return { title, error: { status: 400, code: 'bad_request', message: asked } };
    const req = faultedMeetingsRequest(asked, fault?.kind);
    const listed = world.meetingsDated(req.from, req.to, now).filter((m) => world.listed(m, now));
    const page = selectMeetings(listed, req).slice(req.offset, req.offset + req.limit);
    const records = page.map((m) =>
      meetingRecord(
        m,
        m.races.map((r) => world.summaryAt(r.id, now)),
        false,
      ),
    );
    return { title, params: req.params, data: { meetings: records } };
  };

  const meeting = (id: string, q: Query): Outcome => {
    const title = 'Get meeting by id';
    const m = world.meeting(id);
    const now = clock.now();
    if (!m || !world.listed(m, now)) return notFound(title, `meeting ${id}`);
    const states = m.races.map((r) => world.summaryAt(r.id, now));
    return {
      title,
      params: { enc: q.enc ?? 'json', id },
      data: { meetings: [meetingRecord(m, states, true)] },
    };
  };

  const race = (id: string, q: Query): Outcome => {
    const title = 'Race details';
    const r = world.race(id);
    if (!r || !world.listed(r.meeting)) return notFound(title, `race ${id}`);
    return {
      title,
      params: { enc: q.enc ?? 'json', id },
      data: { races: [raceA(r, world.stateAt(id).state)] },
    };
  };

  const event = (id: string, q: Query, silkBase: string): Outcome => {
    const title = `Event Details: ${id}`;
    const r = world.race(id);
    const now = clock.now();
    if (!r || !world.listed(r.meeting, now)) return notFound(title, `event ${id}`);
    const opts: EventOptions = {
      moneyTracker: flag(q, 'with_money_tracker'),
      willPays: flag(q, 'with_will_pays'),
      toteTrends: flag(q, 'with_tote_trends_data'),
      bigBets: flag(q, 'with_big_bets'),
      liveBets: flag(q, 'with_live_bets'),
      biggestBet: flag(q, 'with_biggest_bet'),
    };
    const { state, count } = world.stateAt(id, now);
    const bets = world.bets(id);
    const betsPlaced =
      opts.bigBets || opts.liveBets || opts.biggestBet ? bets.filter((b) => b.at <= now).length : 0;
    // The data member is a function of (race, its changes applied, the tote tick, bets placed, options).
    const key = `${id}|${Object.values(opts).map(Number).join('')}|${silkBase}`;
    const stamp = `${world.version(id)}|${count}|${toteTick(now, state.startTime, state.closedAt)}|${betsPlaced}`;
    let entry = eventCache.get(key);
    if (entry?.stamp !== stamp) {
      entry = { stamp, data: eventBytes({ seed: world.seed, race: r, state, t: now, bets, opts, silkBase }) };
      const old = eventCache.get(key);
      if (old) eventCacheBytes -= old.data.length;
      eventCache.delete(key);
      eventCache.set(key, entry);
      eventCacheBytes += entry.data.length;
      // Oldest first; the entry just made stays even if it alone is over the bound.
      for (const [k, e] of eventCache) {
        if (eventCacheBytes <= EVENT_CACHE_BYTES || k === key) break;
        eventCache.delete(k);
        eventCacheBytes -= e.data.length;
      }
    }
    return {
      title,
      params: {
        enc: q.enc ?? 'json',
        id,
        present_overlay: flag(q, 'present_overlay'),
        with_big_bets: opts.bigBets,
        with_live_bets: opts.liveBets,
        with_money_tracker: opts.moneyTracker,
        with_biggest_bet: opts.biggestBet,
        // The real echo names it will_pays although the query parameter is with_will_pays.
        will_pays: opts.willPays,
        with_tote_trends_data: opts.toteTrends,
        // Echoed as "" when not sent (issue 22's second real payload).
        bet_type_filter: q.bet_type_filter ?? '',
        bets_limit: BETS_LIMIT,
      },
      data: entry.data,
    };
  };

  const sendError = (reply: FastifyReply, shape: ErrorShape, error: ApiError, title: string, url: string) =>
    send(reply, error.status, errorBody(shape, error, { title, url, now: clock.now() }));

  const handle =
    (op: (req: FastifyRequest, fault: ArmedFault | undefined) => Outcome) =>
    async (req: FastifyRequest, reply: FastifyReply): Promise<void> => {
      const path = req.url.split('?')[0] ?? req.url;
      const fault = deps.faults.take(path);
      const decision = deps.rate?.();
      if (decision) {
        reply.header('X-RateLimit-Limit', decision.limit);
        reply.header('X-RateLimit-Remaining', decision.remaining);
        reply.header('X-RateLimit-Reset', decision.resetSeconds);
      }
      if (fault?.kind === 'rate_limit' || (decision && !decision.allowed)) {
        const retry =
          fault?.kind === 'rate_limit' ? fault.retryAfterSeconds : Math.max(1, decision?.resetSeconds ?? 1);
        reply.header('Retry-After', retry);
        return send(reply, 429, rateLimitBody(retry));
      }
      const failure: ApiError = { status: 500, code: 'internal_error', message: 'simulated server failure' };
      if (fault?.kind === 'not_found') {
        const error: ApiError = { status: 404, code: 'not_found', message: `no resource at ${path}` };
        return sendError(reply, 'official', error, 'Not Found', req.url);
      }
      if (fault?.kind === 'server_error') return sendError(reply, 'flat', failure, '', req.url);
      if (fault?.kind === 'server_error_nested') return sendError(reply, 'nested', failure, '', req.url);
      if (fault?.kind === 'server_error_official')
        return sendError(reply, 'official', failure, 'Internal Server Error', req.url);
      const outcome = op(req, fault);
      if ('error' in outcome) return sendError(reply, 'official', outcome.error, outcome.title, req.url);
      const header = { title: outcome.title, generated_time: isoNano(clock.now()), url: req.url };
      let body: string | Buffer = envelope(header, outcome.params, outcome.data);
      if (fault) body = applyFault(fault, body.toString());
      if (fault?.kind === 'slow') {
        try {
          await delay(fault.delayMs, undefined, { signal: deps.closing });
        } catch {
          // closing: answer at once
        }
      }
      return send(reply, 200, body);
    };

  const q = (req: FastifyRequest) => (req.query ?? {}) as Query;
  const id = (req: FastifyRequest) => (req.params as { id: string }).id;
  const silkBase = (req: FastifyRequest) =>
    deps.silkBaseUrl ?? `http://${HOST.test(req.headers.host ?? '') ? req.headers.host : 'localhost'}`;
  app.get(
    `${API_PREFIX}/meetings`,
    handle((req, fault) => meetings(q(req), fault)),
  );
  app.get(
    `${API_PREFIX}/meetings/:id`,
    handle((req) => meeting(id(req), q(req))),
  );
  app.get(
    `${API_PREFIX}/races/:id`,
    handle((req) => race(id(req), q(req))),
  );
  app.get(
    `${API_PREFIX}/events/:id`,
    handle((req) => event(id(req), q(req), silkBase(req))),
  );
  app.get(`${API_PREFIX}/*`, async (req, reply) => {
    const error: ApiError = {
      status: 404,
      code: 'not_found',
      message: `no operation at ${req.url.split('?')[0]}`,
    };
    return sendError(reply, 'official', error, 'Not Found', req.url);
  });
}

const CLOSE = Buffer.from('}');

/**
 * The body as UTF-8 bytes: a string body is measured (`Content-Length`) and then encoded by the server, two
 * passes over a /meetings list of ~45 race hours where one encoding does (docs/benchmarks.md, the soak's CPU).
 */
function envelope(
  header: object,
  params: object | undefined,
  data: Record<string, unknown> | Buffer,
): Buffer {
  const head = `{"header":${JSON.stringify(header)}${params === undefined ? '' : `,"params":${JSON.stringify(params)}`},"data":`;
  if (Buffer.isBuffer(data)) return Buffer.concat([Buffer.from(head), data, CLOSE]);
  return Buffer.from(`${head}${JSON.stringify(data)}}`);
}

function send(reply: FastifyReply, status: number, body: string | Buffer): FastifyReply {
  return reply.code(status).header('content-type', 'application/json; charset=utf-8').send(body);
}

/** Payload faults: operate on the parsed body (faults are rare, so the cost does not matter). */
function applyFault(fault: ArmedFault, body: string): string {
  if (fault.kind === 'malformed_json') return body.slice(0, Math.max(1, Math.floor(body.length / 2)));
  if (fault.kind !== 'missing_members' && fault.kind !== 'null_runners' && fault.kind !== 'unknown_fields')
    return body;
  const doc = JSON.parse(body) as { data: Record<string, unknown> } & Record<string, unknown>;
  const data = doc.data;
  const races = Array.isArray(data.races) ? (data.races as Record<string, unknown>[]) : undefined;
  if (fault.kind === 'missing_members') {
    if ('race' in data) delete data.race;
    else if ('races' in data) delete data.races;
    else delete data.meetings;
  } else if (fault.kind === 'null_runners') {
    if ('runners' in data) data.runners = null;
    for (const r of races ?? []) r.runners = null;
  } else {
    doc.x_sim_unknown = { note: 'unknown member at the envelope' };
    data.x_sim_unknown = 1;
    const inner = (data.race ?? races?.[0] ?? (data.meetings as unknown[] | undefined)?.[0]) as
      | Record<string, unknown>
      | undefined;
    if (inner) inner.x_sim_unknown = 'inner';
    const runner = (data.runners as Record<string, unknown>[] | null | undefined)?.[0];
    if (runner) runner.x_sim_unknown = [1, 2, 3];
  }
  return JSON.stringify(doc);
}
