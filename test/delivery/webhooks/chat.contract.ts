/**
 * The outbox contract for chat endpoints: pacing, rate limits and disabling, on every backend.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { BackendFactory, BackendUnderTest } from './backends.js';
import { assertDiscordShape, assertSlackShape } from './chat-shapes.js';
import { type Harness, startHarness } from './harness.js';
import { eventEntry, type Received, until } from './helpers.js';

export function chatDeliveryContract(name: string, factory: BackendFactory): void {
  describe(`Slack and Discord delivery: ${name}`, () => {
    let h: Harness;
    let backend: BackendUnderTest;
    const start = async (opts: Omit<Parameters<typeof startHarness>[0], 'backend'> = {}) => {
      backend = await factory();
      h = await startHarness({ backend, ...opts });
    };
    afterEach(async () => {
      await h.close();
      await backend.close();
    });
    it('posts Slack messages at most once a second per URL and honours Slack 429 Retry-After', async () => {
      await start({
        respond: (_r, i) =>
          i === 1 ? { status: 429, headers: { 'retry-after': '30' } } : { status: 200, body: 'ok' },
      });
      await h.createEndpoint({ kind: 'slack' });
      const t0 = h.clock.now();
      await h.enqueue([
        eventEntry('runner.scratched', {}, { raceId: 'a' }),
        eventEntry('runner.scratched', {}, { raceId: 'b' }),
        eventEntry('runner.scratched', {}, { raceId: 'c' }),
      ]);
      await until(() => h.receiver.received.length === 1, 'first message');
      await h.idle();
      await h.clock.advance(999);
      expect(h.receiver.received).toHaveLength(1);
      await h.clock.advance(1);
      await until(() => h.receiver.received.length === 2, 'second message (429)');
      await h.idle();
      // Rate limited: nothing to this URL for 30 s.
      await h.clock.advance(29_999);
      expect(h.receiver.received).toHaveLength(2);
      await h.clock.advance(1);
      await until(() => h.receiver.received.length === 3, 'third');
      await h.idle();
      await h.clock.advance(1000);
      await h.untilStats((s) => s.deliveries.delivered === 3, 'all delivered');
      expect(h.clock.now() - t0).toBe(32_000);
      for (const r of h.receiver.received) assertSlackShape(JSON.parse(r.body));
      expect(h.receiver.received[0]?.headers['webhook-signature']).toBeUndefined();
    });

    it('posts Discord embeds with ?wait=true and honours retry_after from the body', async () => {
      await start({
        respond: (_r, i) =>
          i === 0
            ? {
                status: 429,
                headers: { 'content-type': 'application/json' },
                body: '{"message":"You are being rate limited.","retry_after":2.5,"global":false}',
              }
            : { status: 200, body: '{"id":"1"}' },
      });
      await h.createEndpoint({ kind: 'discord' });
      await h.enqueue([
        eventEntry('race.results', { results: [{ position: 1, runnerNumber: 1, name: 'A' }] }),
      ]);
      await until(() => h.receiver.received.length === 1, 'first attempt');
      await h.idle();
      await h.clock.advance(2_499);
      expect(h.receiver.received).toHaveLength(1);
      await h.clock.advance(1);
      await h.untilStats((s) => s.deliveries.delivered === 1, 'delivered');
      const r = h.receiver.received[1] as Received;
      expect(r.url).toBe('/hook?wait=true');
      assertDiscordShape(JSON.parse(r.body));
    });

    it('disables a Discord endpoint that answers 404 and a Slack one that answers 410', async () => {
      await start({
        respond: (r) => ({ status: r.url.startsWith('/discord') ? 404 : 410, body: 'no_service' }),
      });
      const discord = await h.createEndpoint({ kind: 'discord', url: `${h.receiver.url}/discord` });
      const slack = await h.createEndpoint({ kind: 'slack', url: `${h.receiver.url}/slack` });
      await h.enqueue([eventEntry('race.abandoned', {})]);
      await h.untilStats((s) => s.outcomes.disable === 2, 'both disabled');
      for (const { endpoint } of [discord, slack]) {
        const got = (
          await h.app.inject({ method: 'GET', url: `/v1/webhooks/endpoints/${endpoint.id}` })
        ).json();
        expect(got.enabled).toBe(false);
      }
    });
  });
}
