/** The history port's contract (ports.ts), on every backend: deliveries newest first, their attempts and
 * bodies, counts, and pruning that never forgets what is owed. */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../../src/delivery/webhooks/ports.js';
import type { BackendFactory, BackendUnderTest } from './backends.js';
import { claimOptions, newEndpoint, openOutbox } from './port-fixtures.js';

export function historyContract(name: string, factory: BackendFactory): void {
  describe(`webhook history port: ${name}`, () => {
    let backend: BackendUnderTest | undefined;
    afterEach(async () => backend?.close());

    it('lists an endpoint deliveries newest first, by status, a page at a time', async () => {
      const o = await openOutbox(factory);
      backend = o.backend;
      const { history, queue, endpoints } = o.outbox;
      await endpoints.createEndpoint(newEndpoint('ep_1'));
      await endpoints.createEndpoint(newEndpoint('ep_2'));
      for (let i = 1; i <= 5; i++) await o.enqueue('ep_1', `e${i}`, `race-${i}`);
      await o.enqueue('ep_2', 'other');
      await queue.claimDue(1_000, 1, claimOptions);
      const list = async (q: Parameters<typeof history.listDeliveries>[1]) =>
        (await history.listDeliveries('ep_1', q)).map((d) => d.id);
      expect(await list({ limit: 10 })).toEqual([5, 4, 3, 2, 1]);
      expect(await list({ limit: 2, beforeId: 4 })).toEqual([3, 2]);
      expect(await list({ limit: 10, status: 'in_flight' })).toEqual([1]);
      expect(await history.body(6)).toBe('body:other');
      expect(await history.body(99)).toBeUndefined();
      expect(await history.delivery(99)).toBeUndefined();
    });

    it('prunes finished deliveries updated before the cutoff with their attempts, never owed ones', async () => {
      const o = await openOutbox(factory);
      backend = o.backend;
      const { history, queue, endpoints } = o.outbox;
      await endpoints.createEndpoint(newEndpoint('ep_1'));
      for (const s of ['r1', 'r2', 'r3']) await o.enqueue('ep_1', s, s);
      const [d1, d2, d3] = (await queue.claimDue(1_000, 10, {
        ...claimOptions,
        perEndpoint: 3,
      })) as ClaimedDelivery[];
      const at = (t: number, outcome: string) => ({
        at: t,
        statusCode: 200,
        latencyMs: 1,
        responseBody: 'x'.repeat(2_000),
        outcome,
      });
      await queue.recordAttempt(d1!, at(2_000, 'delivered'), { status: 'delivered', nextAttemptAt: 2_000 });
      await queue.recordAttempt(d2!, at(2_000, 'failed'), { status: 'failed', nextAttemptAt: 2_000 });
      await queue.recordAttempt(d3!, at(2_000, 'retry'), { status: 'pending', nextAttemptAt: 9_000 });
      expect(await history.attempts(1)).toEqual([
        {
          id: 1,
          deliveryId: 1,
          attemptNo: 1,
          at: 2_000,
          statusCode: 200,
          latencyMs: 1,
          error: null,
          responseBody: 'x'.repeat(1_024),
          outcome: 'delivered',
          claim: d1!.claim,
          fence: null,
        },
      ]);
      expect(await history.counts()).toEqual({ pending: 1, in_flight: 0, delivered: 1, failed: 1 });
      expect(await history.prune(2_000)).toBe(0);
      expect(await history.prune(2_001)).toBe(2);
      expect(await history.delivery(1)).toBeUndefined();
      expect(await history.attempts(2)).toEqual([]);
      expect(await history.delivery(3)).toMatchObject({ status: 'pending', attempts: 1 });
      expect(await history.counts()).toEqual({ pending: 1, in_flight: 0, delivered: 0, failed: 0 });
    });
  });
}
