import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { eventResponseSchema } from '../../src/upstream/schemas.js';
import { specErrorBody, specNestedErrorBody, specRateLimitBody } from '../../src/upstream/spec-schemas.js';
import { API, DAY, get, settableClock } from './support.js';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';

/** The official description's main_ErrorResponse: a header with title, generated_time, url, error, error_code. */
function officialError(body: { header?: Record<string, unknown> }, code: string): boolean {
  const h = body.header ?? {};
  return (
    Object.keys(body).join() === 'header' &&
    Object.keys(h).join() === 'title,generated_time,url,error,error_code' &&
    typeof h.title === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/.test(h.generated_time as string) &&
    typeof h.error === 'string' &&
    (h.error as string).length > 0 &&
    h.error_code === code
  );
}

describe('simulator errors and faults', () => {
  const clock = settableClock(Date.parse(`${DAY}T03:00:00Z`));
  let sim: Simulator;
  let raceId: string;
  let meetingId: string;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 5, clock, day: DAY, rateLimit: false });
    const race = sim.world.races[10] as (typeof sim.world.races)[number];
    raceId = race.id;
    meetingId = race.meeting.id;
  });
  afterAll(() => sim.close());
  beforeEach(() => sim.faults.clear());

  it('answers a bad date with 400 in the official error body; a missing date is today', async () => {
    for (const q of [`date_from=22/11/2026&date_to=${DAY}`, `date_from=${DAY}&date_to=tomorrow`]) {
      const res = await get(sim, `/meetings?${q}`);
      expect(res.status).toBe(400);
      expect(officialError(res.json(), 'bad_request')).toBe(true);
      expect(res.json().header.url).toBe(`${API}/meetings?${q}`);
    }
    const res = await get(sim, `/meetings?date_from=${DAY}`);
    expect([res.status, res.json().params.date_to]).toEqual([200, `${DAY}T03:00:00Z`]);
  });

  it('answers 404 in the official error body for unknown meeting, race and event ids and paths', async () => {
    for (const path of [
      `/meetings/${UNKNOWN}`,
      `/races/${UNKNOWN}`,
      `/events/${UNKNOWN}?enc=json`,
      '/nope',
    ]) {
      const res = await get(sim, path);
      expect(res.status).toBe(404);
      expect(officialError(res.json(), 'not_found')).toBe(true);
    }
  });

  it('sends X-RateLimit-* on every response and 429 with Retry-After past its own limit', async () => {
    const limited = await createSimulator({ seed: 5, clock, day: DAY, rateLimit: { perMinute: 3 } });
    try {
      const start = clock.now();
      const seen = [];
      for (let i = 0; i < 3; i++) {
        clock.set(start + i * 10_000);
        const res = await get(limited, `/events/${raceId}?enc=json`);
        seen.push([res.status, res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining']]);
      }
      expect(seen).toEqual([
        [200, '3', '2'],
        [200, '3', '1'],
        [200, '3', '0'],
      ]);
      clock.set(start + 25_000);
      const res = await get(limited, `/meetings/${meetingId}`);
      expect(res.status).toBe(429);
      // The first hit (at start) leaves the window at start + 60 s: 35 s from now.
      expect(res.headers['retry-after']).toBe('35');
      expect(res.headers['x-ratelimit-reset']).toBe('35');
      expect(res.json()).toEqual({ error: 'rate_limit_exceeded', retry_after: 35 });
      expect(specRateLimitBody.safeParse(res.json()).success).toBe(true);
      clock.set(start + 60_000);
      expect((await get(limited, `/meetings/${meetingId}`)).status).toBe(200);
    } finally {
      await limited.close();
      clock.set(Date.parse(`${DAY}T03:00:00Z`));
    }
  });

  it('injects rate_limit with the asked Retry-After, only on matching paths, count times', async () => {
    sim.faults.inject({ kind: 'rate_limit', count: 2, path: '/events/', retryAfterSeconds: 7 });
    expect((await get(sim, `/meetings/${meetingId}`)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const res = await get(sim, `/events/${raceId}`);
      expect([res.status, res.headers['retry-after'], res.json().retry_after]).toEqual([429, '7', 7]);
      expect(res.headers['x-ratelimit-limit']).toBeDefined();
    }
    expect((await get(sim, `/events/${raceId}`)).status).toBe(200);
  });

  it('injects server errors in the two seed spec shapes and the official one', async () => {
    sim.faults.inject({ kind: 'server_error' });
    const flat = await get(sim, `/races/${raceId}`);
    expect(flat.status).toBe(500);
    expect(flat.json()).toEqual({ error: 'internal_error', message: 'simulated server failure' });
    expect(specErrorBody.safeParse(flat.json()).success).toBe(true);
    sim.faults.inject({ kind: 'server_error_nested', path: /races/ });
    const nested = await get(sim, `/races/${raceId}`);
    expect(nested.status).toBe(500);
    expect(specNestedErrorBody.safeParse(nested.json()).success).toBe(true);
    sim.faults.inject({ kind: 'server_error_official' });
    const official = await get(sim, `/events/${raceId}`);
    expect(official.status).toBe(500);
    expect(officialError(official.json(), 'internal_error')).toBe(true);
  });

  it('injects not_found on an existing race, in the official body', async () => {
    sim.faults.inject({ kind: 'not_found' });
    const res = await get(sim, `/events/${raceId}`);
    expect(res.status).toBe(404);
    expect(officialError(res.json(), 'not_found')).toBe(true);
  });

  it('injects a truncated JSON body with a JSON content type', async () => {
    sim.faults.inject({ kind: 'malformed_json' });
    const res = await get(sim, `/events/${raceId}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    expect(() => JSON.parse(res.body)).toThrow();
  });

  it('injects payloads with required members missing, null runners, or unknown members', async () => {
    sim.faults.inject({ kind: 'missing_members' });
    const missing = (await get(sim, `/events/${raceId}`)).json();
    expect(missing.data.race).toBeUndefined();
    expect(eventResponseSchema.safeParse(missing).success).toBe(false);

    sim.faults.inject({ kind: 'null_runners' });
    const nulls = (await get(sim, `/events/${raceId}`)).json();
    expect(nulls.data.runners).toBeNull();
    sim.faults.inject({ kind: 'null_runners' });
    expect((await get(sim, `/races/${raceId}`)).json().data.races[0].runners).toBeNull();

    sim.faults.inject({ kind: 'unknown_fields' });
    const extra = (await get(sim, `/events/${raceId}`)).json();
    expect([extra.x_sim_unknown, extra.data.x_sim_unknown, extra.data.race.x_sim_unknown]).toEqual([
      { note: 'unknown member at the envelope' },
      1,
      'inner',
    ]);
    expect(extra.data.runners[0].x_sim_unknown).toEqual([1, 2, 3]);
    expect(eventResponseSchema.safeParse(extra).success).toBe(true);
  });

  it('delays a slow response by delayMs of real time', async () => {
    sim.faults.inject({ kind: 'slow', delayMs: 150 });
    const t = performance.now();
    const res = await get(sim, `/races/${raceId}`);
    expect(res.status).toBe(200);
    expect(performance.now() - t).toBeGreaterThanOrEqual(140);
  });

  it('clears pending faults', async () => {
    sim.faults.inject({ kind: 'server_error', count: 5 });
    sim.faults.clear();
    expect((await get(sim, `/races/${raceId}`)).status).toBe(200);
  });
});

describe('simulator control API', () => {
  const clock = settableClock(Date.parse(`${DAY}T03:00:00Z`));
  let sim: Simulator;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 5, clock, day: DAY, rateLimit: { perMinute: 1 } });
  });
  afterAll(() => sim.close());
  const post = (url: string, payload: unknown) =>
    sim.app.inject({ method: 'POST', url, payload: payload as object });

  it('injects and clears faults over HTTP, validating the body', async () => {
    expect((await post('/__sim/faults', { kind: 'nope' })).statusCode).toBe(400);
    const bad = await post('/__sim/faults', { kind: 'server_error', count: -1 });
    expect(bad.statusCode).toBe(400);
    expect(Object.keys(bad.json())).toEqual(['error', 'message']);
    expect((await post('/__sim/faults', { kind: 'server_error', path: '/races/' })).statusCode).toBe(201);
    const race = sim.world.races[0] as (typeof sim.world.races)[number];
    expect((await get(sim, `/races/${race.id}`)).status).toBe(500);
    await post('/__sim/faults', { kind: 'server_error' });
    expect((await sim.app.inject({ method: 'DELETE', url: '/__sim/faults' })).statusCode).toBe(200);
    clock.set(clock.now() + 120_000);
    expect((await get(sim, `/races/${race.id}`)).status).toBe(200);
  });

  it('scratches, sets status and results over HTTP, and reports state', async () => {
    const race = sim.world.races.find(
      (r) => r.advertisedStart > clock.now() + 3600_000,
    ) as (typeof sim.world.races)[number];
    const runner = race.runners[0] as (typeof race.runners)[number];
    expect((await post(`/__sim/races/${race.id}/scratch`, {})).statusCode).toBe(400);
    expect((await post(`/__sim/races/${race.id}/scratch`, { entrant_id: 'x' })).statusCode).toBe(400);
    expect((await post('/__sim/races/nope/status', { status: 'Closed' })).statusCode).toBe(404);
    const s = await post(`/__sim/races/${race.id}/scratch`, { entrant_id: runner.entrantId, late: true });
    expect(s.statusCode).toBe(200);
    expect((await post(`/__sim/races/${race.id}/status`, { status: 'Closed' })).statusCode).toBe(200);
    expect((await post(`/__sim/races/${race.id}/results`, {})).statusCode).toBe(200);
    const state = (await get(sim, '/__sim/state')).json();
    const view = state.meetings
      .flatMap((m: { races: { id: string }[] }) => m.races)
      .find((r: { id: string }) => r.id === race.id);
    expect(view.status).toBe('Closed');
    expect(view.runners[0]).toMatchObject({ entrantId: runner.entrantId, scratched: true });
  });
});
