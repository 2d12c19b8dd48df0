/**
 * The racing API client: the three operations racewire uses, `enc=json` on each, every body validated with
 * the lenient schemas. Methods resolve with the validated payload (its ResponseMeta reachable through
 * `responseMeta()`) or reject with exactly one UpstreamError subclass (see errors.ts); nothing else escapes
 * except the caller's own abort reason or LimiterClosedError.
 *
 * Every attempt, retries included, goes through the shared limiter. A 429 pauses the limiter (so every
 * request waits) for Retry-After, then the request is retried through it; 5xx, timeouts and connection
 * failures are retried after a full-jitter back-off on the injected clock; 400/404, invalid JSON and
 * validation failures are final.
 */
import type { z } from 'zod';
import { type Clock, systemClock } from '../clock.js';
import type { Logger } from '../logger.js';
import { backoffDelay, DEFAULT_RETRY_POLICY, type RetryPolicy, retryAfterDelay } from './backoff.js';
import { dataDigest } from './data-digest.js';
import { readMeetingsEcho } from './echo.js';
import { ParamsMismatchError, RateLimitedError, UpstreamError } from './errors.js';
import type { RateLimiter } from './rate-limiter.js';
import { attachMeta, parseRateLimitHeaders, type ResponseMeta, type WithMeta } from './response-meta.js';
import {
  type EventResponse,
  eventResponseSchema,
  type MeetingsResponse,
  meetingsResponseSchema,
} from './schemas.js';
import { type FetchLike, interpret, sendOnce } from './transport.js';

export interface UpstreamHeaders {
  /** `From` header (contact address the real API asks for). */
  from?: string;
  /** `X-Partner` header. */
  partner?: string;
  /** `X-Partner-ID` header. */
  partnerId?: string;
  /** An API key and the header that carries it; the value is never logged. */
  apiKey?: { header: string; value: string };
}

export interface RacingClientOptions {
  /** Base URL including `/affiliates/v1/racing`. */
  baseUrl: string;
  /** The process's one limiter. */
  limiter: RateLimiter;
  /** Race time: reads the rate-limit headers against the limiter's window. @default systemClock */
  clock?: Clock;
  /**
   * Wall time: every wait the provider sees, the request timeout and the back-off between attempts (at x10
   * race time, a 10 s timeout is still 10 real seconds). @default clock (one clock when race time is real)
   */
  wallClock?: Clock;
  logger?: Logger;
  headers?: UpstreamHeaders;
  /** Per attempt, until the whole body is read. @default 10_000 */
  timeoutMs?: number;
  /** Returns [0, 1); drives back-off jitter. @default Math.random */
  random?: () => number;
  /** @default globalThis.fetch */
  fetch?: FetchLike;
  /** @default DEFAULT_RETRY_POLICY (4 attempts, base 500 ms, cap 30 s, 429 default wait 5 s) */
  retry?: Partial<RetryPolicy>;
  /** Called with the metadata of every response that arrived (any status), for metrics. */
  onResponse?: (meta: ResponseMeta) => void;
  /** Called for each accepted /meetings response whose echo leaves members out (echo.ts), for metrics. */
  onEchoOmitted?: (members: string[]) => void;
}

export interface RequestOptions {
  /** Limiter priority; greater goes first. @default 0 */
  priority?: number;
  signal?: AbortSignal;
}

export interface MeetingsQuery {
  /** `YYYY-MM-DD`, `today`, or an ISO 8601 datetime. */
  dateFrom: string;
  dateTo: string;
  /** e.g. `AUS`, `NZ`. */
  country?: string;
  /** Racing code: `T`, `H` or `G`. */
  category?: string;
  limit?: number;
  offset?: number;
}

/**
 * The optional members of /events, by the official parameter names (each `false` by default upstream).
 * Callers choose per request; racewire's choice lives in one place (`PollerDeps.eventOptions`).
 */
export interface EventOptions {
  presentOverlay?: boolean;
  withBigBets?: boolean;
  withLiveBets?: boolean;
  withMoneyTracker?: boolean;
  withBiggestBet?: boolean;
  withWillPays?: boolean;
  withToteTrendsData?: boolean;
}

export interface RacingClient {
  /** GET /meetings */
  meetings(query: MeetingsQuery, opts?: RequestOptions): Promise<WithMeta<MeetingsResponse>>;
  /** GET /meetings/{id}: `data.meetings` holds the one meeting. */
  meeting(id: string, opts?: RequestOptions): Promise<WithMeta<MeetingsResponse>>;
  /** GET /events/{id} (shape B) */
  event(id: string, opts?: EventOptions & RequestOptions): Promise<WithMeta<EventResponse>>;
  /**
   * GET /events/{id}, answered `unchanged` without parsing when the body's data has the digest `known`
   * (`data-digest.ts`); otherwise the validated payload and its data's digest.
   */
  eventIfChanged(
    id: string,
    known: string | undefined,
    opts?: EventOptions & RequestOptions,
  ): Promise<ConditionalEvent>;
  /** Resolves once a request made at that moment would start at once (the limiter's `whenReady`). */
  whenReady(signal?: AbortSignal): Promise<void>;
}

export type ConditionalEvent =
  | { kind: 'unchanged'; digest: string }
  | { kind: 'payload'; payload: WithMeta<EventResponse>; digest: string | undefined };

const EVENT_FLAGS: Record<keyof EventOptions, string> = {
  presentOverlay: 'present_overlay',
  withBigBets: 'with_big_bets',
  withLiveBets: 'with_live_bets',
  withMoneyTracker: 'with_money_tracker',
  withBiggestBet: 'with_biggest_bet',
  withWillPays: 'with_will_pays',
  withToteTrendsData: 'with_tote_trends_data',
};

type Query = Record<string, string | number | boolean | undefined>;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the client's operations share the limiter, the transport and the echo state, and each is short
export function createRacingClient(opts: RacingClientOptions): RacingClient {
  const clock = opts.clock ?? systemClock;
  const wall = opts.wallClock ?? clock;
  const fetchImpl: FetchLike = opts.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const random = opts.random ?? Math.random;
  const timeoutMs = opts.timeoutMs ?? 10_000;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
  const base = opts.baseUrl.replace(/\/+$/, '');
  const headers = buildHeaders(opts.headers);
  const { limiter, logger } = opts;
  // An echo leaving members out is accepted; each member is logged the first time (one client a process).
  const loggedOmissions = new Set<string>();
  const noteOmitted = (members: string[]) => {
    opts.onEchoOmitted?.(members);
    const fresh = members.filter((name) => !loggedOmissions.has(name));
    if (fresh.length === 0) return;
    for (const name of fresh) loggedOmissions.add(name);
    logger?.info(
      { path: '/meetings', omitted: fresh },
      'the /meetings echo leaves these members out; accepted (each is logged once)',
    );
  };

  /**
   * `check` refuses a valid body that answers another request (a filter echoed as another value, echo.ts). `skip` sees a successful body
   * before it is parsed and may answer it instead (`UNPARSED`): it is then neither parsed nor validated.
   */
  async function call<S extends z.ZodType>(
    path: string,
    query: Query,
    schema: S,
    ro: RequestOptions = {},
    check?: (value: z.infer<S>, status: number) => UpstreamError | undefined,
    skip?: (text: string) => boolean,
  ): Promise<WithMeta<z.infer<S>> | typeof UNPARSED> {
    const url = buildUrl(base, path, query);
    for (let attempt = 1; ; attempt++) {
      let meta: ResponseMeta = { path, status: undefined, latencyMs: 0, attempts: attempt, rateLimit: {} };
      let error: UpstreamError;
      try {
        const raw = await limiter.schedule(
          () => sendOnce({ fetch: fetchImpl, url, path, headers, wall, timeoutMs, signal: ro.signal }),
          { priority: ro.priority ?? 0, signal: ro.signal },
        );
        const rateLimit = parseRateLimitHeaders(raw.headers, clock.now());
        limiter.observe(rateLimit);
        meta = { ...meta, status: raw.status, latencyMs: raw.latencyMs, rateLimit };
        if (skip && raw.status >= 200 && raw.status < 300 && skip(raw.text)) {
          opts.onResponse?.(meta);
          return UNPARSED;
        }
        const outcome = interpret(raw, path, schema, (bodySeconds) =>
          retryAfterDelay(rateLimit.retryAfterMs, bodySeconds, policy),
        );
        const refused = outcome.ok ? check?.(outcome.value, raw.status) : undefined;
        if (outcome.ok && !refused) {
          const generated = (outcome.value as { header?: { generated_time?: unknown } }).header
            ?.generated_time;
          if (typeof generated === 'string') meta.generatedTime = generated;
          opts.onResponse?.(meta);
          logger?.debug({ path, status: raw.status, latencyMs: raw.latencyMs, attempt }, 'upstream response');
          return attachMeta(outcome.value as object, meta) as WithMeta<z.infer<S>>;
        }
        opts.onResponse?.(meta);
        error = outcome.ok ? (refused as UpstreamError) : outcome.error;
      } catch (err) {
        if (!(err instanceof UpstreamError)) throw err; // caller's abort, or the limiter closed
        error = err;
      }
      error.meta = meta;
      // The pause protects every other request too, so it applies even when this one gives up.
      if (error instanceof RateLimitedError) limiter.pauseFor(error.retryAfterMs);
      if (!error.retryable || attempt >= policy.maxAttempts) {
        logger?.warn({ path, code: error.code, status: error.status, attempts: attempt }, error.message);
        throw error;
      }
      const delay = error instanceof RateLimitedError ? 0 : backoffDelay(attempt - 1, policy, random);
      logger?.info({ path, code: error.code, attempt, delayMs: delay }, 'upstream attempt failed; retrying');
      if (delay > 0) await wall.sleep(delay, ro.signal);
    }
  }

  const id = (value: string) => encodeURIComponent(value);
  const parsed = async <T>(result: Promise<T | typeof UNPARSED>): Promise<T> => {
    const value = await result;
    if (value === UNPARSED) throw new Error('unreachable: a body was skipped without a skip rule');
    return value;
  };
  const eventQuery = (eo: EventOptions): Query => {
    const query: Query = {};
    for (const [key, name] of Object.entries(EVENT_FLAGS) as [keyof EventOptions, string][]) {
      query[name] = eo[key];
    }
    return query;
  };

  return {
    meetings(q, ro) {
      const asked = {
        date_from: q.dateFrom,
        date_to: q.dateTo,
        country: q.country,
        category: q.category,
        limit: q.limit,
        offset: q.offset,
      };
      return parsed(
        call('/meetings', asked, meetingsResponseSchema, ro, (value, status) => {
          const echo = readMeetingsEcho(asked, value.params);
          if (echo.mismatches.length) return new ParamsMismatchError('/meetings', status, echo.mismatches);
          if (echo.omitted.length) noteOmitted(echo.omitted);
          return undefined;
        }),
      );
    },
    meeting: (meetingId, ro) => parsed(call(`/meetings/${id(meetingId)}`, {}, meetingsResponseSchema, ro)),
    event: (eventId, eo = {}) =>
      parsed(call(`/events/${id(eventId)}`, eventQuery(eo), eventResponseSchema, eo)),
    async eventIfChanged(eventId, known, eo = {}) {
      let digest: string | undefined;
      const result = await call(
        `/events/${id(eventId)}`,
        eventQuery(eo),
        eventResponseSchema,
        eo,
        undefined,
        (text) => {
          digest = dataDigest(text);
          return digest !== undefined && digest === known;
        },
      );
      if (result === UNPARSED) return { kind: 'unchanged', digest: digest as string };
      return { kind: 'payload', payload: result, digest };
    },
    whenReady: (signal) => limiter.whenReady(signal),
  };
}

/** What `call` answers for a body its skip rule took. */
const UNPARSED: unique symbol = Symbol('unparsed');

export function buildUrl(base: string, path: string, query: Query): string {
  const params = new URLSearchParams({ enc: 'json' });
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.set(key, String(value));
  return `${base}${path}?${params.toString()}`;
}

/** The identification headers the official description asks every caller to send, by option name. */
const IDENTIFICATION: ReadonlyArray<[keyof UpstreamHeaders, string]> = [
  ['from', 'From'],
  ['partner', 'X-Partner'],
  ['partnerId', 'X-Partner-ID'],
];

/**
 * Warns once (call it at start-up) when identification headers are missing: the live API may block or
 * rate-limit an unidentified caller. Names the headers, never their values.
 */
export function warnIfUnidentified(logger: Logger, h: UpstreamHeaders = {}): boolean {
  const missing = IDENTIFICATION.filter(([key]) => !h[key]).map(([, header]) => header);
  if (missing.length === 0) return false;
  logger.warn(
    { missing },
    'the racing API asks callers to identify themselves with From, X-Partner and X-Partner-ID (RACING_API_FROM, RACING_API_PARTNER, RACING_API_PARTNER_ID): unidentified callers may be blocked or rate-limited',
  );
  return true;
}

function buildHeaders(h: UpstreamHeaders = {}): Record<string, string> {
  const out: Record<string, string> = { accept: 'application/json' };
  if (h.from) out.From = h.from;
  if (h.partner) out['X-Partner'] = h.partner;
  if (h.partnerId) out['X-Partner-ID'] = h.partnerId;
  if (h.apiKey?.header && h.apiKey.value) out[h.apiKey.header] = h.apiKey.value;
  return out;
}
