import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import {
  createRacingClient,
  type RacingClientOptions,
  warnIfUnidentified,
} from '../../src/upstream/client.js';
import {
  BadRequestError,
  HttpError,
  InvalidJsonError,
  NetworkError,
  NotFoundError,
  ParamsMismatchError,
  ServerError,
  TimeoutError,
  type UpstreamError,
  ValidationError,
} from '../../src/upstream/errors.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import { type ResponseMeta, responseMeta } from '../../src/upstream/response-meta.js';
import { captureLogs } from '../support/log-capture.js';
import { fixture, oneMeeting, type StubServer, startStub } from './stub-server.js';

let stub: StubServer;
beforeAll(async () => {
  stub = await startStub();
});
afterAll(async () => {
  await stub.close();
});

const client = (opts: Partial<RacingClientOptions> = {}) =>
  createRacingClient({
    baseUrl: stub.baseUrl,
    limiter: createRateLimiter({ maxPerMinute: 1000, clock: systemClock }),
    retry: { baseMs: 1, capMs: 2 },
    random: () => 0.5,
    ...opts,
  });

/** The small meetings list, its `params` echoing a request for 2025-07-17 with `echo` on top. */
const echoing = (echo: Record<string, unknown>) => {
  const body = fixture('meetings-small.json') as { params: Record<string, unknown> };
  body.params = {
    ...body.params,
    date_from: '2025-07-17T00:00:00Z',
    date_to: '2025-07-17T00:00:00Z',
    ...echo,
  };
  return body;
};

const failure = async (p: Promise<unknown>): Promise<UpstreamError> => {
  try {
    await p;
  } catch (err) {
    return err as UpstreamError;
  }
  throw new Error('expected a rejection');
};

describe('racing client: requests', () => {
  it('sends enc=json, the query and the partner headers, and returns typed meetings with metadata', async () => {
    stub.respond((_req, reply) =>
      reply
        .headers({ 'x-ratelimit-limit': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-reset': '60' })
        .send(echoing({ limit: 50, offset: 0, country: 'NZ', type: 'T' })),
    );
    const c = client({
      headers: {
        from: 'ops@example.com',
        partner: 'racewire',
        partnerId: 'p-1',
        apiKey: { header: 'x-api-key', value: 's3cret' },
      },
    });
    const res = await c.meetings({
      dateFrom: '2025-07-17',
      dateTo: '2025-07-17',
      country: 'NZ',
      category: 'T',
      limit: 50,
      offset: 0,
    });
    expect(stub.requests[0]).toMatchObject({
      path: '/meetings',
      query: {
        enc: 'json',
        date_from: '2025-07-17',
        date_to: '2025-07-17',
        country: 'NZ',
        category: 'T',
        limit: '50',
        offset: '0',
      },
      headers: {
        from: 'ops@example.com',
        'x-partner': 'racewire',
        'x-partner-id': 'p-1',
        'x-api-key': 's3cret',
      },
    });
    expect(res.data.meetings.map((m) => m.meeting)).toEqual([
      'a24fce8f-e823-4c57-ad3f-aea7b28925bc',
      '4deb741d-d0ad-4e41-9622-68f1702a0331',
    ]);
    expect(res.data.meetings[0]?.races.map((r) => r.id)).toEqual([
      'd24d7148-cecc-4dab-845b-b886ab19cd9a',
      '9ce6a43a-b4a8-4967-a2c7-23deba9d5d95',
    ]);
    const meta = responseMeta(res);
    expect(meta).toMatchObject({
      path: '/meetings',
      status: 200,
      attempts: 1,
      rateLimit: { limit: 100, remaining: 99, resetMs: 60_000 },
    });
    expect(meta?.latencyMs).toBeGreaterThanOrEqual(0);
    expect(Object.keys(res)).toEqual(['header', 'params', 'data']); // the metadata stays out of the data
    expect(JSON.stringify(res)).not.toContain('attempts');
  });

  it('fetches one meeting by id', async () => {
    stub.respond((_req, reply) => reply.send(fixture('meeting-small.json')));
    const res = await client().meeting('a b/c');
    expect(stub.requests[0]).toMatchObject({ path: '/meetings/a%20b%2Fc', query: { enc: 'json' } });
    expect(res.data.meetings).toHaveLength(1);
  });

  it('fetches an event in shape B, sending only the flags asked for', async () => {
    stub.respond((_req, reply) => reply.send(fixture('event-small.json')));
    const res = await client().event('0f57e087-00d9-4c61-9549-835abe2ae2ed', {
      withMoneyTracker: true,
      withWillPays: true,
      withToteTrendsData: false,
      priority: 5,
    });
    expect(stub.requests[0]?.query).toEqual({
      enc: 'json',
      with_money_tracker: 'true',
      with_will_pays: 'true',
      with_tote_trends_data: 'false',
    });
    expect(res.data.race.event_id).toBe('0f57e087-00d9-4c61-9549-835abe2ae2ed');
    expect(res.data.runners?.map((r) => r.entrant_id)).toEqual([
      '61181b8c-a540-43a8-900c-83ebe680e218',
      'a8cc87d4-5a53-47b2-bb26-58d555aac7c0',
    ]);
  });
});

describe('racing client: the live API', () => {
  it('names every /events option as the live API does (the real payload echoes its own request URL)', async () => {
    const real = JSON.parse(
      readFileSync(new URL('../fixtures/real/event-final-awapuni.json', import.meta.url), 'utf8'),
    ) as { header: { url: string } };
    const liveNames = new Set(new URL(real.header.url, 'http://live').searchParams.keys());
    stub.respond((_req, reply) => reply.send(fixture('event-small.json')));
    await client().event('e', {
      presentOverlay: false,
      withBigBets: true,
      withLiveBets: true,
      withMoneyTracker: true,
      withBiggestBet: true,
      withWillPays: true,
      withToteTrendsData: true,
    });
    const sent = Object.keys(stub.requests[0]?.query ?? {}).sort();
    expect(sent).toEqual([
      'enc',
      'present_overlay',
      'with_big_bets',
      'with_biggest_bet',
      'with_live_bets',
      'with_money_tracker',
      'with_tote_trends_data',
      'with_will_pays',
    ]);
    for (const name of sent) expect(liveNames.has(name), name).toBe(true);
  });

  it('refuses a /meetings page whose echo names another country or category, without retrying', async () => {
    stub.respond((_req, reply) => reply.send(echoing({ country: 'AUS', type: 'H' })));
    const err = await failure(
      client().meetings({ dateFrom: '2025-07-17', dateTo: '2025-07-17', country: 'NZ', category: 'T' }),
    );
    expect(err).toBeInstanceOf(ParamsMismatchError);
    expect(err).toMatchObject({
      code: 'UPSTREAM_PARAMS_MISMATCH',
      status: 200,
      mismatches: [
        { name: 'country', asked: 'NZ', echoed: 'AUS' },
        { name: 'category', asked: 'T', echoed: 'H' },
      ],
      message:
        'upstream response on /meetings answers another request: country asked "NZ", echoed "AUS"; category asked "T", echoed "H"',
    });
    expect(stub.requests).toHaveLength(1);
  });

  it('accepts what the echo says of limit, offset and dates (the pager judges them), and an echo leaving members out', async () => {
    // A clamped limit, another offset, a date of another zone: answered, not refused.
    stub.respond((_req, reply) =>
      reply.send(echoing({ date_to: '2025-07-16T12:00:00Z', limit: 100, offset: 0 })),
    );
    const clamped = await client().meetings({
      dateFrom: '2025-07-17',
      dateTo: '2025-07-17',
      limit: 200,
      offset: 200,
    });
    expect(clamped.params).toMatchObject({ limit: 100, offset: 0 });

    const omitted: string[][] = [];
    stub.respond((_req, reply) => {
      const body = echoing({});
      delete (body as { params?: unknown }).params;
      return reply.send(body);
    });
    const none = await client({ onEchoOmitted: (members) => omitted.push(members) }).meetings({
      dateFrom: '2025-07-17',
      dateTo: '2025-07-17',
      country: 'NZ',
    });
    expect(none.data.meetings).toHaveLength(2);
    expect(omitted).toEqual([
      [
        'enc',
        'date_from',
        'date_to',
        'type',
        'country',
        'ids',
        'limit',
        'offset',
        'futures',
        'meeting_numbers',
      ],
    ]);
  });

  it('accepts the echo of a date keyword, which is the server’s own instant', async () => {
    stub.respond((_req, reply) => reply.send(fixture('meetings-small.json')));
    const res = await client().meetings({ dateFrom: 'today', dateTo: 'today' });
    expect(res.data.meetings).toHaveLength(2);
  });

  it('reads the official error body (header.error_code, header.error)', async () => {
    stub.respond((_req, reply) =>
      reply.code(404).send({
        header: {
          title: 'Event Details',
          generated_time: '2025-07-17T11:16:59.18904298Z',
          url: '/affiliates/v1/racing/events/nope',
          error: 'event not found',
          error_code: 'NOT_FOUND',
        },
      }),
    );
    const err = await failure(client().event('nope'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ upstreamError: 'NOT_FOUND', upstreamMessage: 'event not found' });
    expect(err.message).toBe('upstream 404 on /events/nope (NOT_FOUND: event not found)');
  });

  it('warns, naming the headers and never their values, when identification is missing', () => {
    const { logger, lines } = captureLogs();
    expect(
      warnIfUnidentified(logger, { from: 'ops@example.com', apiKey: { header: 'k', value: 'SECRET' } }),
    ).toBe(true);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, missing: ['X-Partner', 'X-Partner-ID'] });
    expect(JSON.stringify(lines)).not.toContain('ops@example.com');
    expect(JSON.stringify(lines)).not.toContain('SECRET');
    expect(warnIfUnidentified(logger, { from: 'a', partner: 'b', partnerId: 'c' })).toBe(false);
    expect(lines).toHaveLength(1);
  });
});

describe('racing client: errors', () => {
  it('turns a 400 into BadRequestError without retrying', async () => {
    stub.respond((_req, reply) =>
      reply.code(400).send({ error: 'bad_request', message: 'date_from must be YYYY-MM-DD' }),
    );
    const err = await failure(client().meetings({ dateFrom: '17/07/2025', dateTo: 'x' }));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err).toMatchObject({
      code: 'UPSTREAM_BAD_REQUEST',
      status: 400,
      upstreamMessage: 'date_from must be YYYY-MM-DD',
    });
    expect(stub.requests).toHaveLength(1);
  });

  it('turns a 404 into NotFoundError without retrying', async () => {
    stub.respond((_req, reply) => reply.code(404).send({ error: 'not_found', message: 'no such race' }));
    const err = await failure(client().event('nope'));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe('upstream 404 on /events/nope (not_found: no such race)');
    expect(err.meta).toMatchObject({ status: 404, attempts: 1 });
    expect(stub.requests).toHaveLength(1);
  });

  it('retries a 500 and returns the payload that follows', async () => {
    stub.respond(
      (_req, reply) => reply.code(500).send({ error: 'internal', message: 'flat shape' }),
      (_req, reply) => reply.send(oneMeeting()),
    );
    const res = await client().meeting('m');
    expect(responseMeta(res)).toMatchObject({ status: 200, attempts: 2 });
    expect(stub.requests).toHaveLength(2);
  });

  it('reads the nested error shape and gives up after maxAttempts', async () => {
    stub.respond((_req, reply) =>
      reply.code(503).send({ error: { code: 'UNAVAILABLE', message: 'nested shape' } }),
    );
    const seen: ResponseMeta[] = [];
    const err = await failure(
      client({ retry: { maxAttempts: 3, baseMs: 1, capMs: 2 }, onResponse: (m) => seen.push(m) }).meeting(
        'r',
      ),
    );
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({ status: 503, upstreamError: 'UNAVAILABLE', upstreamMessage: 'nested shape' });
    expect(err.meta?.attempts).toBe(3);
    expect(stub.requests).toHaveLength(3);
    expect(seen.map((m) => m.status)).toEqual([503, 503, 503]);
  });

  it('does not retry other 4xx statuses', async () => {
    stub.respond((_req, reply) => reply.code(403).send({ error: 'forbidden', message: 'partners only' }));
    const err = await failure(client().meeting('r'));
    expect(err).toBeInstanceOf(HttpError);
    expect(err).toMatchObject({ code: 'UPSTREAM_HTTP_ERROR', status: 403 });
    expect(stub.requests).toHaveLength(1);
  });

  it('times out a slow response', async () => {
    stub.respond(async (_req, reply) => {
      await new Promise((r) => setTimeout(r, 300));
      return reply.send(oneMeeting());
    });
    const err = await failure(client({ timeoutMs: 50, retry: { maxAttempts: 1 } }).meeting('r'));
    expect(err).toBeInstanceOf(TimeoutError);
    expect(err).toMatchObject({
      code: 'UPSTREAM_TIMEOUT',
      status: undefined,
      message: 'upstream timed out after 50 ms on /meetings/r',
    });
  });

  it('reports a refused connection as NetworkError after retrying it', async () => {
    const c = createRacingClient({
      baseUrl: 'http://127.0.0.1:1/affiliates/v1/racing',
      limiter: createRateLimiter({ maxPerMinute: 100, clock: systemClock }),
      retry: { maxAttempts: 2, baseMs: 1, capMs: 1 },
    });
    const err = await failure(c.meeting('r'));
    expect(err).toBeInstanceOf(NetworkError);
    expect(err.code).toBe('UPSTREAM_NETWORK_ERROR');
    expect(err.meta?.attempts).toBe(2);
  });

  it('turns malformed JSON into InvalidJsonError without retrying', async () => {
    stub.respond((_req, reply) =>
      reply.header('content-type', 'application/json').send('{"header": {"title": '),
    );
    const err = await failure(client().event('e'));
    expect(err).toBeInstanceOf(InvalidJsonError);
    expect(err).toMatchObject({ code: 'UPSTREAM_INVALID_JSON', status: 200 });
    expect(stub.requests).toHaveLength(1);
  });

  it('names the path of a missing member in the validation error', async () => {
    const body = fixture('event-small.json') as { data: { race: Record<string, unknown> } };
    delete body.data.race.event_id;
    stub.respond((_req, reply) => reply.send(body));
    const err = await failure(client().event('e'));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      { path: 'data.race.event_id', message: 'expected string, received undefined' },
    ]);
    expect(err.message).toBe(
      'upstream payload on /events/e failed validation: data.race.event_id: expected string, received undefined',
    );
    expect(stub.requests).toHaveLength(1);
  });

  it('names the path of a wrong member', async () => {
    const body = fixture('event-small.json') as { data: { race: Record<string, unknown> } };
    body.data.race.race_number = 'two';
    stub.respond((_req, reply) => reply.send(body));
    const err = await failure(client().event('e'));
    expect((err as ValidationError).issues[0]?.path).toBe('data.race.race_number');
  });

  it('drops a wrong row instead, naming its position, and keeps the rest', async () => {
    const body = fixture('event-small.json') as { data: { runners: Record<string, unknown>[] } };
    const count = body.data.runners.length;
    (body.data.runners[1] as Record<string, unknown>).runner_number = 'two';
    stub.respond((_req, reply) => reply.send(body));
    const res = await client().event('e');
    expect(res.data.runners).toHaveLength(count - 1);
    expect(res.droppedRows).toEqual([
      { path: 'data.runners[1]', code: 'bad_row', reason: expect.stringMatching(/^runner_number: /) },
    ]);
  });
});

describe('racing client: lenient data', () => {
  it('accepts null runners (the pipeline, not the client, refuses to diff them)', async () => {
    const body = fixture('event-small.json') as { data: Record<string, unknown> };
    body.data.runners = null;
    stub.respond((_req, reply) => reply.send(body));
    const res = await client().event('e');
    expect(res.data.runners).toBeNull();
  });

  it('keeps unknown fields and unknown status strings', async () => {
    const body = fixture('event-small.json') as {
      data: Record<string, unknown> & { race: Record<string, unknown> };
    };
    body.data.brand_new = { x: 1 };
    body.data.race.status = 'Photo';
    body.data.race.extra_field = 'kept';
    stub.respond((_req, reply) => reply.send(body));
    const res = await client().event('e');
    expect((res.data as Record<string, unknown>).brand_new).toEqual({ x: 1 });
    expect(res.data.race.status).toBe('Photo');
    expect((res.data.race as Record<string, unknown>).extra_field).toBe('kept');
  });
});

describe('racing client: logging', () => {
  it('never logs the API key', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(String(chunk));
        cb();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    stub.respond(
      (_req, reply) => reply.code(500).send({ error: 'x' }),
      (_req, reply) => reply.code(404).send({ error: 'x' }),
    );
    await failure(
      client({ logger, headers: { apiKey: { header: 'x-api-key', value: 'TOPSECRET-123' } } }).meeting('r'),
    );
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain('TOPSECRET-123');
  });
});
