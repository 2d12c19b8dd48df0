/**
 * The racing API's routes (/affiliates/v1/racing/...): envelope, validation, errors, the simulator's own
 * rate limit with X-RateLimit-* headers on every response, and injected faults.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../clock.js';
import { type EventOptions, eventData } from './event-payload.js';
import type { ArmedFault, FaultQueue } from './faults.js';
import { isoNano, meetingRecord, raceA, raceSummary } from './payloads.js';
import type { RateDecision } from './rate-limit.js';
import type { SimWorld } from './world.js';

export const API_PREFIX = '/affiliates/v1/racing';
const EVENT_CACHE_SIZE = 400;

interface Deps {
  world: SimWorld;
  clock: Clock;
  faults: FaultQueue;
  rate: (() => RateDecision) | undefined;
  /** Aborted on close so slow responses end. */
  closing: AbortSignal;
}

type Query = Record<string, string | undefined>;

/** Outcome of an operation: a JSON payload (object, or pre-serialised data) or an error. */
type Outcome =
  | {
      status: 200;
      title: string;
      params: Record<string, unknown> | undefined;
      data: Record<string, unknown> | string;
    }
  | { status: 400 | 404; error: string; message: string };

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** Parses date_from/date_to: YYYY-MM-DD, `today`, or an ISO datetime; epoch ms, or undefined if invalid. */
export function parseDateParam(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  if (value === 'today') return Math.floor(now / 60_000) * 60_000;
  if (DATE_ONLY.test(value) || DATE_TIME.test(value)) {
    const ms = Date.parse(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
    return Number.isNaN(ms) ? undefined : ms;
  }
  return undefined;
}

const dayOf = (ms: number) => Math.floor(ms / 86_400_000) * 86_400_000;
const flag = (q: Query, name: string) => q[name] === 'true' || q[name] === '1';

export function registerApiRoutes(app: FastifyInstance, deps: Deps): void {
  const { world, clock } = deps;
  // Latest serialised `data` per (race, options), keyed by what it is a function of.
  const eventCache = new Map<string, { stamp: string; data: string }>();

  const meetings = (q: Query): Outcome => {
    const now = clock.now();
    for (const name of ['date_from', 'date_to'] as const) {
      if (q[name] === undefined) return { status: 400, error: 'bad_request', message: `${name} is required` };
      if (parseDateParam(q[name], now) === undefined) {
        return {
          status: 400,
          error: 'bad_request',
          message: `${name} must be YYYY-MM-DD, today, or an ISO 8601 datetime; got ${JSON.stringify(q[name])}`,
        };
      }
    }
    const from = parseDateParam(q.date_from, now) as number;
    const to = parseDateParam(q.date_to, now) as number;
    const limit = q.limit === undefined ? 100 : Number(q.limit);
    const offset = q.offset === undefined ? 0 : Number(q.offset);
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) {
      return { status: 400, error: 'bad_request', message: 'limit must be an integer from 1 to 200' };
    }
    if (!Number.isInteger(offset) || offset < 0) {
      return { status: 400, error: 'bad_request', message: 'offset must be a non-negative integer' };
    }
    const selected = world.meetings.filter(
      (m) =>
        m.date >= dayOf(from) &&
        m.date <= dayOf(to) &&
        (!q.country || m.country === q.country) &&
        (!q.category || m.category === q.category),
    );
    const list = selected.slice(offset, offset + limit).map((m) => {
      const states = m.races.map((r) => world.stateAt(r.id, now).state);
      const summaries = m.races.map((r, i) => raceSummary(r, states[i] as never, false));
      return meetingRecord(m, summaries, states.at(-1)?.trackCondition ?? m.trackCondition, false);
    });
    return {
      status: 200,
      title: 'Race Meetings',
      params: {
        enc: q.enc ?? 'json',
        ids: null,
        date_from: `${new Date(from).toISOString().slice(0, 19)}Z`,
        date_to: `${new Date(to).toISOString().slice(0, 19)}Z`,
        type: q.category ?? ' ',
        country: q.country ?? ' ',
        limit,
        offset,
        futures: false,
        meeting_numbers: null,
      },
      data: { meetings: list },
    };
  };

  const meeting = (id: string, q: Query): Outcome => {
    const m = world.meeting(id);
    if (!m) return { status: 404, error: 'not_found', message: `meeting ${id} not found` };
    const now = clock.now();
    const states = m.races.map((r) => world.stateAt(r.id, now).state);
    const summaries = m.races.map((r, i) => raceSummary(r, states[i] as never, true));
    return {
      status: 200,
      title: 'Get meeting by id',
      params: { enc: q.enc ?? 'json', id },
      data: {
        meetings: [meetingRecord(m, summaries, states.at(-1)?.trackCondition ?? m.trackCondition, true)],
      },
    };
  };

  const race = (id: string, q: Query): Outcome => {
    const r = world.race(id);
    if (!r) return { status: 404, error: 'not_found', message: `race ${id} not found` };
    return {
      status: 200,
      title: 'Race details',
      params: { enc: q.enc ?? 'json', id },
      data: { races: [raceA(r, world.stateAt(id).state)] },
    };
  };

  const event = (id: string, q: Query): Outcome => {
    const r = world.race(id);
    if (!r) return { status: 404, error: 'not_found', message: `event ${id} not found` };
    const opts: EventOptions = {
      moneyTracker: flag(q, 'with_money_tracker'),
      willPays: flag(q, 'will_pays') || flag(q, 'with_will_pays'),
      toteTrends: flag(q, 'with_tote_trends_data'),
      bigBets: flag(q, 'with_big_bets'),
      liveBets: flag(q, 'with_live_bets'),
      biggestBet: flag(q, 'with_biggest_bet'),
    };
    const { state, count } = world.stateAt(id);
    // The data member is a function of (race, its change list, changes applied, options): serialise it once.
    const key = `${id}|${Object.values(opts).map(Number).join('')}`;
    const stamp = `${world.version(id)}|${count}`;
    let entry = eventCache.get(key);
    if (entry?.stamp !== stamp) {
      entry = { stamp, data: JSON.stringify(eventData(r, state, opts)) };
      eventCache.delete(key);
      eventCache.set(key, entry);
      // Bounded: drop the least recently rebuilt entry (~100 KB each).
      if (eventCache.size > EVENT_CACHE_SIZE) eventCache.delete(eventCache.keys().next().value as string);
    }
    const data = entry.data;
    return {
      status: 200,
      title: `Event Details: ${id}`,
      params: {
        enc: q.enc ?? 'json',
        id,
        present_overlay: flag(q, 'present_overlay'),
        with_big_bets: opts.bigBets,
        with_live_bets: opts.liveBets,
        with_money_tracker: opts.moneyTracker,
        with_biggest_bet: opts.biggestBet,
        will_pays: opts.willPays,
        with_tote_trends_data: opts.toteTrends,
      },
      data,
    };
  };

  const handle =
    (op: (req: FastifyRequest) => Outcome) =>
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
        return send(reply, 429, JSON.stringify({ error: 'rate_limit_exceeded', retry_after: retry }));
      }
      if (fault?.kind === 'not_found') {
        return send(reply, 404, JSON.stringify({ error: 'not_found', message: `no resource at ${path}` }));
      }
      if (fault?.kind === 'server_error') {
        return send(
          reply,
          500,
          JSON.stringify({ error: 'internal_error', message: 'simulated server failure' }),
        );
      }
      if (fault?.kind === 'server_error_nested') {
        return send(
          reply,
          500,
          JSON.stringify({ error: { code: 'internal_error', message: 'simulated server failure' } }),
        );
      }
      const outcome = op(req);
      if (outcome.status !== 200) {
        return send(
          reply,
          outcome.status,
          JSON.stringify({ error: outcome.error, message: outcome.message }),
        );
      }
      const header = { title: outcome.title, generated_time: isoNano(clock.now()), url: req.url };
      let body = envelope(header, outcome.params, outcome.data);
      if (fault) body = applyFault(fault, body);
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
  app.get(
    `${API_PREFIX}/meetings`,
    handle((req) => meetings(q(req))),
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
    handle((req) => event(id(req), q(req))),
  );
}

function envelope(
  header: object,
  params: object | undefined,
  data: Record<string, unknown> | string,
): string {
  const head = params === undefined ? '' : `,"params":${JSON.stringify(params)}`;
  const body = typeof data === 'string' ? data : JSON.stringify(data);
  return `{"header":${JSON.stringify(header)}${head},"data":${body}}`;
}

function send(reply: FastifyReply, status: number, body: string): FastifyReply {
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
