import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import type { RecordedExchange } from '../../src/replay/exchange.js';
import { recordingFetch } from '../../src/replay/recording-fetch.js';
import { createReplayServer, type ReplayServer } from '../../src/replay/replay-server.js';
import { createReplayStore } from '../../src/replay/replay-store.js';

const T = Date.parse('2025-07-17T00:40:00.000Z');
const exchange = (
  dt: number,
  path: string,
  status: number,
  body: string,
  query: Record<string, string> = { enc: 'json' },
): RecordedExchange => ({
  at: T + dt,
  method: 'GET',
  path,
  query,
  status,
  headers: { 'content-type': 'application/json', 'x-ratelimit-remaining': '42' },
  body,
});

async function* from(list: RecordedExchange[]) {
  yield* list;
}

const clock = createManualClock(T - 1_000);
let server: ReplayServer;
beforeAll(async () => {
  const store = createReplayStore(
    from([
      exchange(0, '/events/a', 200, '{"v":1}'),
      exchange(0, '/meetings', 200, '{"m":1}', {
        date_from: '2025-07-17',
        date_to: '2025-07-17',
        enc: 'json',
      }),
      exchange(5_000, '/events/a', 200, '{"v":2}'),
      exchange(5_000, '/events/gone', 404, '{"error":"not_found","message":"no such event"}'),
      exchange(9_000, '/events/a', 200, '{"v":3}'),
    ])[Symbol.asyncIterator](),
  );
  server = await createReplayServer({ store, clock, logger: pino({ level: 'silent' }) });
});
afterAll(async () => {
  await server.close();
});

const get = (url: string) => server.app.inject({ method: 'GET', url: `/affiliates/v1/racing${url}` });

describe('replay server', () => {
  it('answers a request never recorded (yet) plainly, never as data', async () => {
    const res = await get('/events/a?enc=json');
    expect(res.statusCode).toBe(404);
    expect(res.headers['x-replay']).toBe('miss');
    expect(res.json()).toEqual({
      error: 'not_recorded',
      message:
        'no response recorded for GET /affiliates/v1/racing/events/a?enc=json at or before 2025-07-17T00:39:59.000Z',
    });
  });

  it('answers each request with its latest response at the clock’s instant, status, headers and body as recorded', async () => {
    await clock.advance(1_000);
    let res = await get('/events/a?enc=json');
    expect([res.statusCode, res.body, res.headers['x-replay'], res.headers['x-ratelimit-remaining']]).toEqual(
      [200, '{"v":1}', 'hit', '42'],
    );
    expect(res.headers['x-replay-recorded-at']).toBe('2025-07-17T00:40:00.000Z');
    await clock.advance(6_000);
    res = await get('/events/a?enc=json');
    expect(res.body).toBe('{"v":2}');
    const gone = await get('/events/gone?enc=json');
    expect([gone.statusCode, gone.json()]).toEqual([404, { error: 'not_found', message: 'no such event' }]);
    await clock.advance(10_000);
    expect((await get('/events/a?enc=json')).body).toBe('{"v":3}');
  });

  it('matches a query whatever the order of its parameters, and only that query', async () => {
    const res = await get('/meetings?enc=json&date_to=2025-07-17&date_from=2025-07-17');
    expect([res.statusCode, res.body]).toEqual([200, '{"m":1}']);
    expect(
      (await get('/meetings?enc=json&date_to=2025-07-18&date_from=2025-07-17')).headers['x-replay'],
    ).toBe('miss');
    expect((await get('/events/a')).headers['x-replay']).toBe('miss');
  });

  it('reports where the replay stands', async () => {
    const res = await server.app.inject({ method: 'GET', url: '/__replay' });
    expect(res.json()).toMatchObject({
      now: '2025-07-17T00:40:16.000Z',
      recordsRead: 5,
      requestsKnown: 3,
      lastRecordAt: '2025-07-17T00:40:09.000Z',
      ended: true,
    });
  });
});

describe('recording fetch', () => {
  it('records the request (path under the base, query sorted, no request header) and the response, and passes the response on unchanged', async () => {
    const recorded: RecordedExchange[] = [];
    const rclock = createManualClock(T);
    const fetch = recordingFetch({
      fetch: async () =>
        new Response('{"error":"rate_limited"}', {
          status: 429,
          headers: { 'content-type': 'application/json', 'retry-after': '7', 'set-cookie': 'session=abc' },
        }),
      baseUrl: 'https://api.example/affiliates/v1/racing/',
      clock: rclock,
      record: (e) => recorded.push(e),
      logger: pino({ level: 'silent' }),
    });
    const res = await fetch(
      'https://api.example/affiliates/v1/racing/events/x?with_will_pays=true&enc=json',
      {
        method: 'GET',
        headers: { 'x-api-key': 'SECRET', From: 'ops@example.com' },
      },
    );
    expect([res.status, await res.text(), res.headers.get('retry-after')]).toEqual([
      429,
      '{"error":"rate_limited"}',
      '7',
    ]);
    expect(recorded).toEqual([
      {
        at: T,
        method: 'GET',
        path: '/events/x',
        query: { enc: 'json', with_will_pays: 'true' },
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '7' },
        body: '{"error":"rate_limited"}',
      },
    ]);
    expect(Object.keys(recorded[0]!.query)).toEqual(['enc', 'with_will_pays']);
  });
});
