/** The endpoints port's contract (ports.ts), on every backend: plain reads and writes, and the version the
 * feed plans against. */
import { afterEach, describe, expect, it } from 'vitest';
import type { BackendFactory, BackendUnderTest } from './backends.js';
import { newEndpoint, openOutbox } from './port-fixtures.js';

export function endpointsContract(name: string, factory: BackendFactory): void {
  describe(`webhook endpoints port: ${name}`, () => {
    let backend: BackendUnderTest | undefined;
    afterEach(async () => backend?.close());
    const open = async () => {
      const o = await openOutbox(factory);
      backend = o.backend;
      return { ...o, endpoints: o.outbox.endpoints };
    };

    it('creates, reads and lists endpoints in creation order, with their secrets', async () => {
      const { endpoints, clock } = await open();
      const b = await endpoints.createEndpoint(newEndpoint('ep_b', { eventTypes: ['race.results'] }));
      clock.at = 2_000;
      await endpoints.createEndpoint(newEndpoint('ep_a', { kind: 'slack', filters: { country: 'AUS' } }));
      expect(b).toEqual({
        ...newEndpoint('ep_b', { eventTypes: ['race.results'] }),
        disabledReason: null,
        failingSince: null,
        createdAt: 1_000,
        updatedAt: 1_000,
        previousSecret: null,
        previousSecretExpiresAt: null,
        pausedUntil: 0,
      });
      expect((await endpoints.listEndpoints()).map((e) => [e.id, e.kind, e.createdAt])).toEqual([
        ['ep_b', 'standard', 1_000],
        ['ep_a', 'slack', 2_000],
      ]);
      expect((await endpoints.endpoint('ep_a'))?.filters).toEqual({ country: 'AUS' });
      expect(await endpoints.endpoint('ep_none')).toBeUndefined();
    });

    it('moves the version on every change of which endpoints want what, and on nothing else', async () => {
      const { endpoints } = await open();
      const version = async () => (await endpoints.enabledEndpoints()).version;
      const seen = [await version()];
      await endpoints.createEndpoint(newEndpoint('ep_1'));
      seen.push(await version());
      await endpoints.rotateSecret('ep_1', 'whsec_new', 1_000);
      await endpoints.markEndpointHealth('ep_1', true, 1_000);
      seen.push(await version());
      await endpoints.updateEndpoint('ep_1', { eventTypes: ['race.results'] });
      seen.push(await version());
      await endpoints.disableEndpoint('ep_1', 'by hand');
      seen.push(await version());
      expect((await endpoints.enabledEndpoints()).endpoints).toEqual([]);
      await endpoints.deleteEndpoint('ep_1');
      seen.push(await version());
      expect(seen[1]).toBe(seen[2]);
      expect(new Set([seen[0], seen[1], seen[3], seen[4], seen[5]]).size).toBe(5);
    });

    it('disables with a reason, and re-enabling clears it, the failure clock and the pause', async () => {
      const { endpoints, outbox, clock } = await open();
      await endpoints.createEndpoint(newEndpoint('ep_1'));
      expect(await endpoints.markEndpointHealth('ep_1', true, 5_000)).toBe(5_000);
      expect(await endpoints.markEndpointHealth('ep_1', true, 6_000)).toBe(5_000);
      await outbox.queue.pauseEndpoint('ep_1', 9_000);
      clock.at = 7_000;
      await endpoints.disableEndpoint('ep_1', 'answered 410');
      expect(await endpoints.endpoint('ep_1')).toMatchObject({
        enabled: false,
        disabledReason: 'answered 410',
        failingSince: 5_000,
        pausedUntil: 9_000,
        updatedAt: 7_000,
      });
      expect(await endpoints.endpointHealth()).toEqual({ failing: 0, disabled: 1 });
      clock.at = 8_000;
      expect(
        await endpoints.updateEndpoint('ep_1', { enabled: true, url: 'https://b.example.com/' }),
      ).toMatchObject({
        enabled: true,
        url: 'https://b.example.com/',
        disabledReason: null,
        failingSince: null,
        pausedUntil: 0,
        updatedAt: 8_000,
      });
      expect(await endpoints.markEndpointHealth('ep_1', true, 8_000)).toBe(8_000);
      expect(await endpoints.endpointHealth()).toEqual({ failing: 1, disabled: 0 });
      expect(await endpoints.markEndpointHealth('ep_1', false, 8_500)).toBeNull();
      expect(await endpoints.endpointHealth()).toEqual({ failing: 0, disabled: 0 });
    });

    it('rotates a secret, keeping the previous one until the overlap ends', async () => {
      const { endpoints, clock } = await open();
      await endpoints.createEndpoint(newEndpoint('ep_1', { secret: 'whsec_old' }));
      clock.at = 3_000;
      expect(await endpoints.rotateSecret('ep_1', 'whsec_new', 60_000)).toMatchObject({
        secret: 'whsec_new',
        previousSecret: 'whsec_old',
        previousSecretExpiresAt: 63_000,
      });
      expect(await endpoints.rotateSecret('ep_none', 'whsec_new', 60_000)).toBeUndefined();
    });

    it('answers undefined or false for an endpoint that does not exist', async () => {
      const { endpoints } = await open();
      expect(await endpoints.updateEndpoint('ep_none', { description: 'x' })).toBeUndefined();
      expect(await endpoints.deleteEndpoint('ep_none')).toBe(false);
      await endpoints.createEndpoint(newEndpoint('ep_1'));
      expect(await endpoints.deleteEndpoint('ep_1')).toBe(true);
      expect(await endpoints.listEndpoints()).toEqual([]);
    });
  });
}
