import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../../src/bus/bus.js';
import { createSqliteOutbox } from '../../../src/delivery/webhooks/outbox.js';
import { type Harness, startHarness } from './harness.js';
import { eventEntry, type Received, until } from './helpers.js';

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

describe('webhook dispatcher', () => {
  let h: Harness;
  afterEach(async () => {
    await h.close();
  });

  it('delivers every event signed, to an independent receiver that verifies it with standardwebhooks', async () => {
    h = await startHarness();
    const { secret } = await h.createEndpoint();
    const entries = [
      eventEntry('runner.scratched', { runner: { runnerNumber: 4, name: 'Fast Lad' } }),
      eventEntry('race.status_changed', { from: 'Open', to: 'Closed' }),
      eventEntry('race.results', { results: [] }, { raceId: 'race-2' }),
    ];
    expect(h.service.enqueueForEntries(entries)).toBe(3);
    await until(() => h.receiver.received.length === 3, '3 deliveries');
    const byId = new Map(h.receiver.received.map((r) => [r.headers['webhook-id'], r]));
    for (const e of entries) {
      const r = byId.get(e.event.id);
      expect(r?.body).toBe(JSON.stringify(e.event));
      expect(verify(secret, r as Received)).toEqual(e.event);
      expect(r?.headers['content-type']).toBe('application/json');
    }
    await until(() => h.service.stats().deliveries.delivered === 3, 'recorded');
    expect(h.service.stats()).toEqual({
      pending: 0,
      failing: 0,
      disabled: 0,
      deliveries: { pending: 0, in_flight: 0, delivered: 3, failed: 0 },
      inFlight: 0,
      outcomes: { delivered: 3, retry: 0, failed: 0, disable: 0 },
    });
  });

  it('re-sends the same id and bytes on retry, with a fresh timestamp', async () => {
    h = await startHarness({ respond: (_r, i) => ({ status: i === 0 ? 500 : 200, body: 'oops' }) });
    const { secret, endpoint } = await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.abandoned', { reason: 'weather' })]);
    await until(() => h.receiver.received.length === 1, 'first attempt');
    await until(() => h.clock.pending() > 0 && h.service.stats().inFlight === 0, 'attempt recorded');
    await h.clock.advance(5_000);
    await until(() => h.receiver.received.length === 2, 'retry');
    const [first, second] = h.receiver.received as [Received, Received];
    expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(second.body).toBe(first.body);
    expect(Number(second.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBe(5);
    expect(verify(secret, second)).toEqual(JSON.parse(first.body));
    await until(() => h.service.stats().deliveries.delivered === 1, 'recorded');
    const [d] = await h.deliveries(endpoint.id);
    const attempts = await h.attempts(d?.id ?? 0);
    expect(attempts.map((a) => [a.statusCode, a.outcome, a.responseBody])).toEqual([
      [500, 'retry', 'oops'],
      [200, 'delivered', 'oops'],
    ]);
  });

  it('signs with both secrets during a rotation, and only the new one after the overlap', async () => {
    h = await startHarness();
    const { endpoint, secret: oldSecret } = await h.createEndpoint();
    const rotated = await h.app.inject({
      method: 'POST',
      url: `/v1/webhooks/endpoints/${endpoint.id}/rotate-secret`,
    });
    const { secret: newSecret, endpoint: after } = rotated.json() as {
      secret: string;
      endpoint: { previousSecretExpiresAt: string };
    };
    expect(Date.parse(after.previousSecretExpiresAt)).toBe(h.clock.now() + 24 * 3600_000);
    h.service.enqueueForEntries([eventEntry('runner.scratched', {})]);
    await until(() => h.receiver.received.length === 1, 'delivery');
    const r = h.receiver.received[0] as Received;
    expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(oldSecret, r)).toEqual(JSON.parse(r.body));
    expect(verify(newSecret, r)).toEqual(JSON.parse(r.body));

    await h.clock.advance(24 * 3600_000);
    h.service.enqueueForEntries([eventEntry('runner.scratched', {})]);
    await until(() => h.receiver.received.length === 2, 'second delivery');
    const r2 = h.receiver.received[1] as Received;
    const at = new Date(Number(r2.headers['webhook-timestamp']) * 1000);
    expect(r2.headers['webhook-signature']).toBe(
      new Webhook(newSecret).sign(String(r2.headers['webhook-id']), at, r2.body),
    );
  });

  it('retries on the schedule, measured on a manual clock, and marks the delivery failed when it is used up', async () => {
    h = await startHarness({ respond: () => ({ status: 500 }) });
    const { endpoint } = await h.createEndpoint();
    const t0 = h.clock.now();
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    const schedule = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    await until(() => h.receiver.received.length === 1, 'attempt 1');
    for (const [i, delay] of schedule.entries()) {
      await until(() => h.service.stats().inFlight === 0, 'recorded');
      await h.clock.advance(delay - 1);
      expect(h.receiver.received).toHaveLength(i + 1);
      await h.clock.advance(1);
      await until(() => h.receiver.received.length === i + 2, `attempt ${i + 2}`);
    }
    await until(() => h.service.stats().deliveries.failed === 1, 'failed');
    const [d] = await h.deliveries(endpoint.id);
    const attempts = await h.attempts(d?.id ?? 0);
    let at = t0;
    const expected = [t0, ...schedule.map((s) => (at += s))];
    expect(attempts.map((a) => Date.parse(a.at))).toEqual(expected);
    expect(attempts.map((a) => a.outcome)).toEqual([...schedule.map(() => 'retry'), 'failed']);
  });

  it('honours Retry-After on 429 instead of the schedule', async () => {
    h = await startHarness({
      respond: (_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 }),
    });
    await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    await until(() => h.receiver.received.length === 1 && h.service.stats().inFlight === 0, 'attempt 1');
    await h.clock.advance(119_999);
    expect(h.receiver.received).toHaveLength(1);
    await h.clock.advance(1);
    await until(() => h.service.stats().deliveries.delivered === 1, 'delivered after Retry-After');
  });

  it('disables the endpoint on 410, keeps the delivery pending, and sends it when re-enabled', async () => {
    let gone = true;
    h = await startHarness({ respond: () => ({ status: gone ? 410 : 200 }) });
    const { endpoint } = await h.createEndpoint();
    const entry = eventEntry('race.results', {});
    h.service.enqueueForEntries([entry]);
    await until(() => h.service.stats().outcomes.disable === 1, 'disabled');
    const got = (await h.app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${endpoint.id}` })).json();
    expect(got).toMatchObject({ enabled: false, disabledReason: 'the endpoint answered 410' });
    expect(h.service.enqueueForEntries([eventEntry('race.results', {})])).toBe(0);
    await h.clock.advance(3600_000);
    expect(h.receiver.received).toHaveLength(1);
    expect((await h.deliveries(endpoint.id)).map((d) => d.status)).toEqual(['pending']);
    expect(h.service.stats()).toMatchObject({ pending: 1, failing: 0, disabled: 1 });

    gone = false;
    await h.app.inject({
      method: 'PATCH',
      url: `/v1/webhooks/endpoints/${endpoint.id}`,
      payload: { enabled: true },
    });
    await until(() => h.service.stats().deliveries.delivered === 1, 'delivered after re-enabling');
    expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual([entry.event.id, entry.event.id]);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    h = await startHarness({ respond: () => ({ status: 302, headers: { location: '/elsewhere' } }) });
    const { endpoint } = await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    await until(() => h.service.stats().outcomes.retry === 1, 'attempt recorded');
    expect(h.receiver.received.map((r) => r.url)).toEqual(['/hook']);
    const [d] = await h.deliveries(endpoint.id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1 });
    expect((await h.attempts(d?.id ?? 0)).map((a) => [a.statusCode, a.outcome])).toEqual([[302, 'retry']]);
  });

  it('keeps order per endpoint and race: a later event waits for an earlier one being retried', async () => {
    h = await startHarness({
      respond: (r, i) => ({ status: i === 0 && r.headers['webhook-id'] === 'race-1:1' ? 500 : 200 }),
    });
    await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.results', {}, { raceId: 'race-1' })]);
    h.service.enqueueForEntries([
      eventEntry('race.results', {}, { raceId: 'race-1' }),
      eventEntry('race.results', {}, { raceId: 'race-2' }),
    ]);
    await until(
      () => h.service.stats().deliveries.delivered === 1 && h.service.stats().inFlight === 0,
      'race-2 delivered',
    );
    expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual(['race-1:1', 'race-2:1']);
    await h.clock.advance(5_000);
    await until(() => h.service.stats().deliveries.delivered === 3, 'all delivered');
    expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
      'race-1:1',
      'race-2:1',
      'race-1:1',
      'race-1:2',
    ]);
  });

  it('disables an endpoint that has failed without a success for the configured time', async () => {
    h = await startHarness({
      respond: () => ({ status: 500 }),
      config: { retrySchedule: [30_000, 30_000, 30_000], disableAfterMs: 60_000 },
    });
    const { endpoint } = await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    for (let i = 1; i <= 3; i++) {
      await until(() => h.receiver.received.length === i && h.service.stats().inFlight === 0, `attempt ${i}`);
      if (i < 3) await h.clock.advance(30_000);
    }
    const got = (await h.app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${endpoint.id}` })).json();
    expect(got.enabled).toBe(false);
    expect(got.disabledReason).toBe(`failing since ${got.failingSince} without a success`);
  });

  it('records a timed-out attempt and moves on', async () => {
    h = await startHarness({ respond: () => ({ status: 200, hangMs: 1_000 }), config: { timeoutMs: 100 } });
    const { endpoint } = await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    await until(() => h.service.stats().outcomes.retry === 1, 'timeout recorded');
    const [d] = await h.deliveries(endpoint.id);
    expect((await h.attempts(d?.id ?? 0)).map((a) => [a.statusCode, a.error])).toEqual([
      [null, 'timed out after 100 ms'],
    ]);
  });

  it('keeps a hanging endpoint to its share of the slots, so other endpoints are not held up', async () => {
    h = await startHarness({
      respond: (r) => (r.url.startsWith('/slow') ? { status: 200, hangMs: 1_500 } : { status: 204 }),
      config: { concurrency: 4, perEndpointConcurrency: 2 },
    });
    await h.createEndpoint({ url: `${h.receiver.url}/slow` });
    await h.createEndpoint({ url: `${h.receiver.url}/fast` });
    h.service.enqueueForEntries(
      Array.from({ length: 8 }, (_, i) => eventEntry('race.results', {}, { raceId: `r${i}` })),
    );
    await until(
      () => h.receiver.received.filter((r) => r.url === '/fast').length === 8,
      'fast endpoint served',
      1_000,
    );
    expect(h.receiver.received.filter((r) => r.url === '/slow').length).toBe(2);
  });

  it('stores at most 1024 characters of a response body', async () => {
    h = await startHarness({ respond: () => ({ status: 500, body: 'x'.repeat(5000) }) });
    const { endpoint } = await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    await until(() => h.service.stats().outcomes.retry === 1, 'attempt recorded');
    const [d] = await h.deliveries(endpoint.id);
    const [a] = await h.attempts(d?.id ?? 0);
    expect(a?.responseBody).toBe('x'.repeat(1024));
    expect(a?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('lets an attempt in flight finish on close, and takes no new work after', async () => {
    h = await startHarness({ respond: () => ({ status: 200, hangMs: 200 }) });
    await h.createEndpoint();
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    await until(() => h.receiver.received.length === 1, 'attempt started');
    await h.service.close();
    expect(h.service.stats()).toMatchObject({ pending: 0, deliveries: { delivered: 1 } });
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    await h.clock.advance(60_000);
    expect(h.receiver.received).toHaveLength(1);
    expect(h.service.stats().pending).toBe(1);
  });

  it('finds work in the outbox without any wake-up, and wakes at once on the bus', async () => {
    const bus = createMemoryBus();
    h = await startHarness({ bus, config: { pollIntervalMs: 60_000 } });
    await h.createEndpoint();
    // Another writer (no kick): only the outbox knows.
    const writer = createSqliteOutbox(h.db, { now: () => h.clock.now() });
    const first = eventEntry('race.results', {});
    writer.enqueueForEntries([first]);
    await h.clock.advance(60_000);
    await until(() => h.receiver.received.length === 1, 'found by polling the outbox');
    const second = eventEntry('race.results', {});
    writer.enqueueForEntries([second]);
    bus.publish([second]);
    await until(() => h.receiver.received.length === 2, 'woken by the bus');
  });

  it('forgets finished deliveries after the retention, and never owed ones', async () => {
    h = await startHarness({
      respond: (r) => ({ status: r.url === '/down' ? 500 : 200 }),
      config: { retentionMs: 24 * 3600_000, retrySchedule: [30 * 24 * 3600_000] },
    });
    const ok = await h.createEndpoint();
    const down = await h.createEndpoint({ url: `${h.receiver.url}/down` });
    h.service.enqueueForEntries([eventEntry('race.results', {})]);
    await until(
      () => h.service.stats().deliveries.delivered === 1 && h.service.stats().inFlight === 0,
      'sent',
    );
    await h.clock.advance(24 * 3600_000 + 3600_000);
    expect(await h.deliveries(ok.endpoint.id)).toEqual([]);
    expect((await h.deliveries(down.endpoint.id)).map((d) => d.status)).toEqual(['pending']);
  });
});
