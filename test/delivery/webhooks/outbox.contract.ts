/**
 * The outbox contract: the webhook service's delivery behaviour, run against every outbox backend (SQLite,
 * Redis) through the same service, API and receiver. Backend-agnostic: events go in as the event log would
 * hand them over (BackendUnderTest.enqueue / append).
 */
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { BackendFactory, BackendUnderTest } from './backends.js';
import { type Harness, startHarness } from './harness.js';
import { eventEntry, type Received, until } from './helpers.js';

const verify = (secret: string, r: Received) =>
  new Webhook(secret).verify(r.body, {
    'webhook-id': String(r.headers['webhook-id']),
    'webhook-timestamp': String(r.headers['webhook-timestamp']),
    'webhook-signature': String(r.headers['webhook-signature']),
  });

export function outboxContract(name: string, factory: BackendFactory): void {
  describe(`webhook outbox contract: ${name}`, () => {
    let h: Harness;
    let backend: BackendUnderTest;
    const start = async (opts: Omit<Parameters<typeof startHarness>[0], 'backend'> = {}) => {
      backend = await factory();
      h = await startHarness({ backend, ...opts });
      return h;
    };
    afterEach(async () => {
      await h.close();
      await backend.close();
    });

    it('delivers every event signed, to an independent receiver that verifies it with standardwebhooks', async () => {
      await start();
      const { secret } = await h.createEndpoint();
      const entries = [
        eventEntry('runner.scratched', { runner: { runnerNumber: 4, name: 'Fast Lad' } }),
        eventEntry('race.status_changed', { from: 'Open', to: 'Closed' }),
        eventEntry('race.results', { results: [] }, { raceId: 'race-2' }),
      ];
      await h.enqueue(entries);
      await until(() => h.receiver.received.length === 3, '3 deliveries');
      const byId = new Map(h.receiver.received.map((r) => [r.headers['webhook-id'], r]));
      for (const e of entries) {
        const r = byId.get(e.event.id);
        expect(r?.body).toBe(JSON.stringify(e.event));
        expect(verify(secret, r as Received)).toEqual(e.event);
        expect(r?.headers['content-type']).toBe('application/json');
      }
      await h.idle();
      expect(await h.service.stats()).toEqual({
        pending: 0,
        failing: 0,
        disabled: 0,
        deliveries: { pending: 0, in_flight: 0, delivered: 3, failed: 0 },
        inFlight: 0,
        outcomes: { delivered: 3, retry: 0, failed: 0, disable: 0 },
      });
    });

    it('enqueues only for enabled endpoints whose types and filters match', async () => {
      await start();
      const all = await h.createEndpoint({ url: `${h.receiver.url}/all` });
      const r2 = await h.createEndpoint({ url: `${h.receiver.url}/r2`, filters: { raceId: 'race-2' } });
      const aus = await h.createEndpoint({
        url: `${h.receiver.url}/aus`,
        eventTypes: ['race.results'],
        filters: { country: 'AUS' },
      });
      const off = await h.createEndpoint({ url: `${h.receiver.url}/off`, enabled: false });
      await h.enqueue([
        eventEntry('race.results', { country: 'AUS' }, { raceId: 'race-1' }),
        eventEntry('race.results', { race: { country: 'NZ' } }, { raceId: 'race-2' }),
        eventEntry('runner.scratched', {}, { raceId: 'race-3' }),
      ]);
      await h.idle();
      const ids = async (id: string) => (await h.deliveries(id)).map((d) => d.eventId);
      expect(await ids(all.endpoint.id)).toEqual(['race-3:1', 'race-2:1', 'race-1:1']);
      expect(await ids(r2.endpoint.id)).toEqual(['race-2:1']);
      expect(await ids(aus.endpoint.id)).toEqual(['race-1:1']);
      expect(await ids(off.endpoint.id)).toEqual([]);
    });

    it('re-sends the same id and bytes on retry, with a fresh timestamp', async () => {
      await start({ respond: (_r, i) => ({ status: i === 0 ? 500 : 200, body: 'oops' }) });
      const { secret, endpoint } = await h.createEndpoint();
      await h.enqueue([eventEntry('race.abandoned', { reason: 'weather' })]);
      await until(() => h.receiver.received.length === 1, 'first attempt');
      await h.idle('attempt recorded');
      await h.clock.advance(5_000);
      await until(() => h.receiver.received.length === 2, 'retry');
      const [first, second] = h.receiver.received as [Received, Received];
      expect(second.headers['webhook-id']).toBe(first.headers['webhook-id']);
      expect(second.body).toBe(first.body);
      expect(Number(second.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).toBe(
        5,
      );
      expect(verify(secret, second)).toEqual(JSON.parse(first.body));
      await h.untilStats((s) => s.deliveries.delivered === 1, 'recorded');
      const [d] = await h.deliveries(endpoint.id);
      const attempts = await h.attempts(d?.id ?? 0);
      expect(attempts.map((a) => [a.statusCode, a.outcome, a.responseBody])).toEqual([
        [500, 'retry', 'oops'],
        [200, 'delivered', 'oops'],
      ]);
    });

    it('signs with both secrets during a rotation, and only the new one after the overlap', async () => {
      await start();
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
      await h.enqueue([eventEntry('runner.scratched', {})]);
      await until(() => h.receiver.received.length === 1, 'delivery');
      const r = h.receiver.received[0] as Received;
      expect(String(r.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verify(oldSecret, r)).toEqual(JSON.parse(r.body));
      expect(verify(newSecret, r)).toEqual(JSON.parse(r.body));

      await h.idle();
      await h.clock.advance(24 * 3600_000);
      await h.enqueue([eventEntry('runner.scratched', {})]);
      await until(() => h.receiver.received.length === 2, 'second delivery');
      const r2 = h.receiver.received[1] as Received;
      const at = new Date(Number(r2.headers['webhook-timestamp']) * 1000);
      expect(r2.headers['webhook-signature']).toBe(
        new Webhook(newSecret).sign(String(r2.headers['webhook-id']), at, r2.body),
      );
    });

    it('retries on the schedule, measured on a manual clock, and marks the delivery failed when it is used up', async () => {
      await start({ respond: () => ({ status: 500 }) });
      const { endpoint } = await h.createEndpoint();
      const t0 = h.clock.now();
      await h.enqueue([eventEntry('race.results', {})]);
      const schedule = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
      await until(() => h.receiver.received.length === 1, 'attempt 1');
      for (const [i, delay] of schedule.entries()) {
        await h.idle('recorded');
        await h.clock.advance(delay - 1);
        expect(h.receiver.received).toHaveLength(i + 1);
        await h.clock.advance(1);
        await until(() => h.receiver.received.length === i + 2, `attempt ${i + 2}`);
      }
      await h.untilStats((s) => s.deliveries.failed === 1, 'failed');
      const [d] = await h.deliveries(endpoint.id);
      const attempts = await h.attempts(d?.id ?? 0);
      let at = t0;
      const expected = [t0, ...schedule.map((s) => (at += s))];
      expect(attempts.map((a) => Date.parse(a.at))).toEqual(expected);
      expect(attempts.map((a) => a.outcome)).toEqual([...schedule.map(() => 'retry'), 'failed']);
    });

    it('honours Retry-After on 429 instead of the schedule', async () => {
      await start({
        respond: (_r, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '120' } } : { status: 200 }),
      });
      await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {})]);
      await until(() => h.receiver.received.length === 1, 'attempt 1');
      await h.idle();
      await h.clock.advance(119_999);
      expect(h.receiver.received).toHaveLength(1);
      await h.clock.advance(1);
      await h.untilStats((s) => s.deliveries.delivered === 1, 'delivered after Retry-After');
    });

    it('disables the endpoint on 410, keeps the delivery pending, and sends it when re-enabled', async () => {
      let gone = true;
      await start({ respond: () => ({ status: gone ? 410 : 200 }) });
      const { endpoint } = await h.createEndpoint();
      const entry = eventEntry('race.results', {});
      await h.enqueue([entry]);
      await h.untilStats((s) => s.outcomes.disable === 1, 'disabled');
      const got = (
        await h.app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${endpoint.id}` })
      ).json();
      expect(got).toMatchObject({ enabled: false, disabledReason: 'the endpoint answered 410' });
      await h.enqueue([eventEntry('race.results', {})]);
      await h.idle();
      await h.clock.advance(3600_000);
      await h.idle();
      expect(h.receiver.received).toHaveLength(1);
      expect((await h.deliveries(endpoint.id)).map((d) => d.status)).toEqual(['pending']);
      expect(await h.service.stats()).toMatchObject({ pending: 1, failing: 0, disabled: 1 });

      gone = false;
      await h.app.inject({
        method: 'PATCH',
        url: `/v1/webhooks/endpoints/${endpoint.id}`,
        payload: { enabled: true },
      });
      await h.untilStats((s) => s.deliveries.delivered === 1, 'delivered after re-enabling');
      expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
        entry.event.id,
        entry.event.id,
      ]);
    });

    it('does not follow redirects: a 3xx is a failed attempt', async () => {
      await start({ respond: () => ({ status: 302, headers: { location: '/elsewhere' } }) });
      const { endpoint } = await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {})]);
      await h.untilStats((s) => s.outcomes.retry === 1, 'attempt recorded');
      expect(h.receiver.received.map((r) => r.url)).toEqual(['/hook']);
      const [d] = await h.deliveries(endpoint.id);
      expect(d).toMatchObject({ status: 'pending', attempts: 1 });
      expect((await h.attempts(d?.id ?? 0)).map((a) => [a.statusCode, a.outcome])).toEqual([[302, 'retry']]);
    });

    it('keeps order per endpoint and race: a later event waits for an earlier one being retried', async () => {
      await start({
        respond: (r, i) => ({ status: i === 0 && r.headers['webhook-id'] === 'race-1:1' ? 500 : 200 }),
      });
      await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {}, { raceId: 'race-1' })]);
      await h.enqueue([
        eventEntry('race.results', {}, { raceId: 'race-1' }),
        eventEntry('race.results', {}, { raceId: 'race-2' }),
      ]);
      await h.untilStats((s) => s.deliveries.delivered === 1 && s.inFlight === 0, 'race-2 delivered');
      await h.idle();
      expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual(['race-1:1', 'race-2:1']);
      await h.clock.advance(5_000);
      await h.untilStats((s) => s.deliveries.delivered === 3, 'all delivered');
      expect(h.receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
        'race-1:1',
        'race-2:1',
        'race-1:1',
        'race-1:2',
      ]);
    });

    it('disables an endpoint that has failed without a success for the configured time', async () => {
      await start({
        respond: () => ({ status: 500 }),
        config: { retrySchedule: [30_000, 30_000, 30_000], disableAfterMs: 60_000 },
      });
      const { endpoint } = await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {})]);
      for (let i = 1; i <= 3; i++) {
        await until(() => h.receiver.received.length === i, `attempt ${i}`);
        await h.idle();
        if (i < 3) await h.clock.advance(30_000);
      }
      const got = (
        await h.app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${endpoint.id}` })
      ).json();
      expect(got.enabled).toBe(false);
      expect(got.disabledReason).toBe(`failing since ${got.failingSince} without a success`);
    });

    it('records a timed-out attempt and moves on', async () => {
      await start({ respond: () => ({ status: 200, hangMs: 1_000 }), config: { timeoutMs: 100 } });
      const { endpoint } = await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {})]);
      await h.untilStats((s) => s.outcomes.retry === 1, 'timeout recorded');
      const [d] = await h.deliveries(endpoint.id);
      expect((await h.attempts(d?.id ?? 0)).map((a) => [a.statusCode, a.error])).toEqual([
        [null, 'timed out after 100 ms'],
      ]);
    });

    it('keeps a hanging endpoint to its share of the slots, so other endpoints are not held up', async () => {
      await start({
        respond: (r) => (r.url.startsWith('/slow') ? { status: 200, hangMs: 1_500 } : { status: 204 }),
        config: { concurrency: 4, perEndpointConcurrency: 2 },
      });
      await h.createEndpoint({ url: `${h.receiver.url}/slow` });
      await h.createEndpoint({ url: `${h.receiver.url}/fast` });
      await h.enqueue(
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
      await start({ respond: () => ({ status: 500, body: 'x'.repeat(5000) }) });
      const { endpoint } = await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {})]);
      await h.untilStats((s) => s.outcomes.retry === 1, 'attempt recorded');
      const [d] = await h.deliveries(endpoint.id);
      const [a] = await h.attempts(d?.id ?? 0);
      expect(a?.responseBody).toBe('x'.repeat(1024));
      expect(a?.latencyMs).toBeGreaterThanOrEqual(0);
    });

    it('lets an attempt in flight finish on close, and takes no new work after', async () => {
      await start({ respond: () => ({ status: 200, hangMs: 200 }) });
      await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {})]);
      await until(() => h.receiver.received.length === 1, 'attempt started');
      await h.service.close();
      expect(await h.service.stats()).toMatchObject({ pending: 0, deliveries: { delivered: 1 } });
      await backend.append([eventEntry('race.results', {})]);
      await h.clock.advance(3_600_000);
      expect(h.receiver.received).toHaveLength(1);
    });

    it('finds work in the outbox without any wake-up, and wakes at once on the bus', async () => {
      await start({ config: { pollIntervalMs: 60_000 } });
      await h.createEndpoint();
      await h.idle();
      // Another writer (no kick): only the outbox (the feed) knows.
      await backend.append([eventEntry('race.results', {})]);
      await h.clock.advance(60_000);
      await until(() => h.receiver.received.length === 1, 'found by polling the outbox');
      await h.idle();
      const second = eventEntry('race.results', {});
      await backend.append([second]);
      h.bus.publish([second]);
      await until(() => h.receiver.received.length === 2, 'woken by the bus');
    });

    it('forgets finished deliveries after the retention, and never owed ones', async () => {
      await start({
        respond: (r) => ({ status: r.url === '/down' ? 500 : 200 }),
        config: { retentionMs: 24 * 3600_000, retrySchedule: [30 * 24 * 3600_000] },
      });
      const ok = await h.createEndpoint();
      const down = await h.createEndpoint({ url: `${h.receiver.url}/down` });
      await h.enqueue([eventEntry('race.results', {})]);
      await h.untilStats((s) => s.deliveries.delivered === 1 && s.inFlight === 0, 'sent');
      await h.idle();
      await h.clock.advance(24 * 3600_000 + 3600_000);
      await h.untilStats((s) => s.deliveries.delivered === 0, 'pruned');
      expect(await h.deliveries(ok.endpoint.id)).toEqual([]);
      expect((await h.deliveries(down.endpoint.id)).map((d) => d.status)).toEqual(['pending']);
      expect(await h.service.stats()).toMatchObject({ deliveries: { pending: 1, delivered: 0 } });
    });

    it('prunes a delivered and a finally failed delivery with their attempts, never a pending one', async () => {
      const day = 24 * 3600_000;
      await start({
        respond: (r) =>
          r.url === '/bad'
            ? { status: 500 }
            : r.url === '/held'
              ? { status: 429, headers: { 'retry-after': String((30 * day) / 1000) } }
              : { status: 200 },
        config: { retentionMs: day, retrySchedule: [5_000], maxRetryAfterMs: 30 * day },
      });
      const ok = await h.createEndpoint();
      const bad = await h.createEndpoint({ url: `${h.receiver.url}/bad` });
      const held = await h.createEndpoint({ url: `${h.receiver.url}/held` });
      await h.enqueue([eventEntry('race.results', {})]);
      await h.untilStats((s) => s.deliveries.delivered === 1 && s.inFlight === 0, 'first attempts');
      await h.idle('recorded');
      await h.clock.advance(5_000);
      await h.untilStats((s) => s.deliveries.failed === 1 && s.inFlight === 0, 'bad finally failed');
      await h.idle('recorded');
      const [okD] = await h.deliveries(ok.endpoint.id);
      const [badD] = await h.deliveries(bad.endpoint.id);
      const [heldD] = await h.deliveries(held.endpoint.id);
      const outbox = backend.store(() => h.clock.now()).outbox;
      expect((await outbox.history.attempts(okD?.id ?? 0)).length).toBe(1);
      expect((await outbox.history.attempts(badD?.id ?? 0)).length).toBe(2);

      // Just inside the retention, nothing is pruned; an hour past it, both finished ones are gone.
      await h.clock.advance(day - 5_000 - 1);
      await h.idle();
      expect(await h.service.stats()).toMatchObject({ deliveries: { delivered: 1, failed: 1, pending: 1 } });
      await h.clock.advance(2 * 3600_000);
      await h.untilStats((s) => s.deliveries.delivered === 0 && s.deliveries.failed === 0, 'pruned');
      for (const d of [okD, badD]) {
        expect(await outbox.history.delivery(d?.id ?? 0)).toBeUndefined();
        expect(await outbox.history.attempts(d?.id ?? 0)).toEqual([]);
        const gone = await h.app.inject({ method: 'GET', url: `/v1/webhooks/deliveries/${d?.id}` });
        expect(gone.statusCode).toBe(404);
      }
      expect((await h.deliveries(held.endpoint.id)).map((d) => [d.id, d.status, d.attempts])).toEqual([
        [heldD?.id, 'pending', 1],
      ]);
      expect((await outbox.history.attempts(heldD?.id ?? 0)).map((a) => a.outcome)).toEqual(['retry']);
      expect(await h.service.stats()).toMatchObject({ deliveries: { pending: 1, delivered: 0, failed: 0 } });
    });

    it('replays one delivery and a time range as new deliveries with the same id and bytes', async () => {
      await start();
      const { endpoint } = await h.createEndpoint();
      const entry = eventEntry('race.results', { results: [] });
      await h.enqueue([entry]);
      await h.untilStats((s) => s.deliveries.delivered === 1, 'delivered');
      const [original] = await h.deliveries(endpoint.id);
      const one = await h.app.inject({
        method: 'POST',
        url: `/v1/webhooks/deliveries/${original?.id}/replay`,
      });
      expect(one.json().delivery).toMatchObject({ eventId: entry.event.id, replayOf: original?.id });
      const from = new Date(h.clock.now() - 1000).toISOString();
      const to = new Date(h.clock.now() + 1000).toISOString();
      const range = await h.app.inject({
        method: 'POST',
        url: `/v1/webhooks/endpoints/${endpoint.id}/replay`,
        payload: { from, to },
      });
      expect(range.json()).toEqual({ replayed: 1 });
      await h.untilStats((s) => s.deliveries.delivered === 3, 'replays delivered');
      expect(h.receiver.received.map((r) => [r.headers['webhook-id'], r.body])).toEqual(
        Array.from({ length: 3 }, () => [entry.event.id, JSON.stringify(entry.event)]),
      );
      expect((await h.deliveries(endpoint.id)).map((d) => [d.id > (original?.id ?? 0), d.replayOf])).toEqual([
        [true, original?.id],
        [true, original?.id],
        [false, null],
      ]);
      const list = await h.app.inject({
        method: 'GET',
        url: `/v1/webhooks/endpoints/${endpoint.id}/deliveries?limit=1&before=${(original?.id ?? 0) + 2}`,
      });
      expect(list.json().deliveries.map((d: { id: number }) => d.id)).toEqual([(original?.id ?? 0) + 1]);
    });

    it('deletes an endpoint with its deliveries and attempts', async () => {
      await start({ respond: () => ({ status: 500 }) });
      const { endpoint } = await h.createEndpoint();
      await h.enqueue([eventEntry('race.results', {}), eventEntry('race.results', {}, { raceId: 'race-2' })]);
      await h.untilStats((s) => s.outcomes.retry === 2, 'attempts recorded');
      const [d] = await h.deliveries(endpoint.id);
      const del = await h.app.inject({ method: 'DELETE', url: `/v1/webhooks/endpoints/${endpoint.id}` });
      expect(del.statusCode).toBe(204);
      const gone = await h.app.inject({ method: 'GET', url: `/v1/webhooks/deliveries/${d?.id}` });
      expect(gone.statusCode).toBe(404);
      expect(await h.service.stats()).toMatchObject({
        pending: 0,
        deliveries: { pending: 0, in_flight: 0, delivered: 0, failed: 0 },
      });
      await h.clock.advance(3_600_000);
      expect(h.receiver.received).toHaveLength(2);
    });
  });
}
