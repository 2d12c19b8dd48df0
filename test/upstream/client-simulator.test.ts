/** The client against the embedded simulator over real HTTP: every operation, every error status, every fault. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Clock, createScaledClock } from '../../src/clock.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import {
  createRacingClient,
  type RacingClient,
  type RacingClientOptions,
} from '../../src/upstream/client.js';
import {
  BadRequestError,
  InvalidJsonError,
  NotFoundError,
  ServerError,
  TimeoutError,
  type UpstreamError,
  ValidationError,
} from '../../src/upstream/errors.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import { responseMeta } from '../../src/upstream/response-meta.js';

const DAY = '2026-11-22';
// 20x real time: a 1 s Retry-After takes 50 ms; the simulated day is at its busiest around midday UTC+12.
const SPEED = 20;

describe('racing client against the simulator', () => {
  let simulator: Simulator;
  let baseUrl: string;
  let clock: Clock;
  let meetingId: string;
  let raceId: string;

  const client = (opts: Partial<RacingClientOptions> = {}): RacingClient =>
    createRacingClient({
      baseUrl,
      clock,
      limiter: createRateLimiter({ maxPerMinute: 1000, clock }),
      retry: { baseMs: 1, capMs: 2 },
      ...opts,
    });

  const failure = async (p: Promise<unknown>): Promise<UpstreamError> => {
    try {
      await p;
    } catch (err) {
      return err as UpstreamError;
    }
    throw new Error('expected a rejection');
  };

  beforeAll(async () => {
    clock = createScaledClock({ origin: Date.parse(`${DAY}T02:00:00Z`), speed: SPEED });
    simulator = await createSimulator({
      seed: 7,
      clock,
      rateLimit: false,
      day: DAY,
    });
    baseUrl = await simulator.listen({ port: 0, host: '127.0.0.1' });
    const day = await client().meetings({ dateFrom: DAY, dateTo: DAY });
    const meeting = day.data.meetings.find((m) => m.races.length > 0);
    if (!meeting) throw new Error('the simulated day has no meetings with races');
    meetingId = meeting.meeting;
    raceId = (meeting.races[0] as { id: string }).id;
  });
  afterAll(async () => {
    await simulator?.close();
  });
  beforeEach(() => {
    simulator.faults.clear();
  });

  it('lists the day’s meetings, typed, with response metadata', async () => {
    const res = await client().meetings({ dateFrom: DAY, dateTo: DAY });
    expect(res.data.meetings.length).toBeGreaterThan(0);
    for (const m of res.data.meetings) expect(typeof m.meeting).toBe('string');
    expect(responseMeta(res)).toMatchObject({ path: '/meetings', status: 200, attempts: 1 });
  });

  it('fetches one meeting', async () => {
    const res = await client().meeting(meetingId);
    expect(res.data.meetings.map((m) => m.meeting)).toEqual([meetingId]);
  });

  it('fetches an event in shape B', async () => {
    const res = await client().event(raceId, { withMoneyTracker: true, withWillPays: true });
    expect(res.data.race.event_id).toBe(raceId);
    expect(res.data.race.meeting_id).toBe(meetingId);
    expect(Array.isArray(res.data.runners)).toBe(true);
  });

  it('reports a bad date as BadRequestError', async () => {
    const err = await failure(client().meetings({ dateFrom: '22/11/2026', dateTo: DAY }));
    expect(err).toBeInstanceOf(BadRequestError);
    expect(err.status).toBe(400);
  });

  it('reports unknown ids as NotFoundError', async () => {
    const c = client();
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const p of [c.meeting(unknown), c.event(unknown)]) {
      const err = await failure(p);
      expect(err).toBeInstanceOf(NotFoundError);
      expect(err.status).toBe(404);
    }
  });

  it('reports an injected not_found as NotFoundError without retrying', async () => {
    simulator.faults.inject({ kind: 'not_found', count: 1 });
    const err = await failure(client().event(raceId));
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.meta?.attempts).toBe(1);
  });

  it('reads a 500 in the flat body shape', async () => {
    simulator.faults.inject({ kind: 'server_error', count: 1 });
    const err = await failure(client({ retry: { maxAttempts: 1 } }).event(raceId));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({
      status: 500,
      upstreamError: 'internal_error',
      upstreamMessage: 'simulated server failure',
    });
  });

  it('reads a 500 in the nested body shape', async () => {
    simulator.faults.inject({ kind: 'server_error_nested', count: 1 });
    const err = await failure(client({ retry: { maxAttempts: 1 } }).event(raceId));
    expect(err).toBeInstanceOf(ServerError);
    expect(err).toMatchObject({
      status: 500,
      upstreamError: 'internal_error',
      upstreamMessage: 'simulated server failure',
    });
  });

  it('retries past a 500 and succeeds', async () => {
    simulator.faults.inject({ kind: 'server_error', count: 1 });
    const res = await client().event(raceId);
    expect(responseMeta(res)).toMatchObject({ status: 200, attempts: 2 });
  });

  it('waits Retry-After after a 429, then succeeds', async () => {
    simulator.faults.inject({ kind: 'rate_limit', count: 1, retryAfterSeconds: 2 });
    const limiter = createRateLimiter({ maxPerMinute: 1000, clock });
    const started = clock.now();
    const res = await client({ limiter }).event(raceId);
    expect(clock.now() - started).toBeGreaterThanOrEqual(2_000);
    expect(responseMeta(res)).toMatchObject({ status: 200, attempts: 2 });
  });

  it('times out a response slower than timeoutMs', async () => {
    simulator.faults.inject({ kind: 'slow', count: 1, delayMs: 2_000 });
    const err = await failure(client({ timeoutMs: 1_000, retry: { maxAttempts: 1 } }).event(raceId));
    expect(err).toBeInstanceOf(TimeoutError);
  });

  it('reports malformed JSON as InvalidJsonError', async () => {
    simulator.faults.inject({ kind: 'malformed_json', count: 1 });
    const err = await failure(client().event(raceId));
    expect(err).toBeInstanceOf(InvalidJsonError);
  });

  it('reports missing members as a ValidationError naming the path', async () => {
    simulator.faults.inject({ kind: 'missing_members', count: 1 });
    const err = await failure(client().event(raceId));
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([
      { path: 'data.race', message: 'expected object, received undefined' },
    ]);
    expect(err.message).toBe(
      `upstream payload on /events/${raceId} failed validation: data.race: expected object, received undefined`,
    );
  });

  it('accepts null runners as valid', async () => {
    simulator.faults.inject({ kind: 'null_runners', count: 1 });
    const res = await client().event(raceId);
    expect(res.data.runners).toBeNull();
  });

  it('keeps unknown fields at every level', async () => {
    simulator.faults.inject({ kind: 'unknown_fields', count: 1 });
    const res = (await client().event(raceId)) as unknown as {
      x_sim_unknown: unknown;
      data: {
        x_sim_unknown: unknown;
        race: { x_sim_unknown: unknown };
        runners: { x_sim_unknown: unknown }[];
      };
    };
    expect(res.x_sim_unknown).toEqual({ note: 'unknown member at the envelope' });
    expect(res.data.x_sim_unknown).toBe(1);
    expect(res.data.race.x_sim_unknown).toBe('inner');
    expect(res.data.runners[0]?.x_sim_unknown).toEqual([1, 2, 3]);
  });
});
