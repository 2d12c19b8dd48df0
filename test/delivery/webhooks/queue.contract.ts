/** The queue port's contract (ports.ts), on every backend: chains, caps, claims, fencing, recovery, replays
 * and the feed step, called directly (outbox.contract.ts covers the same through the service). */
import { afterEach, describe, expect, it } from 'vitest';
import type { ClaimedDelivery } from '../../../src/delivery/webhooks/ports.js';
import { FEED_START } from '../../../src/store/ports.js';
import type { BackendFactory, BackendUnderTest } from './backends.js';
import { claimOptions, newEndpoint, openOutbox, raceEvent } from './port-fixtures.js';

const ids = (claimed: ClaimedDelivery[] | 'fenced') =>
  claimed === 'fenced' ? claimed : claimed.map((d) => d.id);
const attempt = { at: 2_000, statusCode: 500, latencyMs: 3, responseBody: 'no', outcome: 'retry' };

export function queueContract(name: string, factory: BackendFactory): void {
  describe(`webhook queue port: ${name}`, () => {
    let backend: BackendUnderTest | undefined;
    afterEach(async () => backend?.close());
    const open = async () => {
      const o = await openOutbox(factory);
      backend = o.backend;
      await o.outbox.endpoints.createEndpoint(newEndpoint('ep_1'));
      return { ...o, queue: o.outbox.queue };
    };

    it('hands out only the head of each chain, in id order, and the next one once it is finished', async () => {
      const { queue, enqueue, outbox } = await open();
      const [a, b, c] = [
        await enqueue('ep_1', 'e1'),
        await enqueue('ep_1', 'e2'),
        await enqueue('ep_1', 'e3', 'race-2'),
      ];
      expect([a?.id, b?.id, c?.id]).toEqual([1, 2, 3]);
      expect(await queue.wakeTimes()).toEqual({ nextDueAt: 1_000, oldestClaimAt: null });
      const first = await queue.claimDue(1_000, 10, claimOptions);
      expect(ids(first)).toEqual([1, 3]);
      const [d1] = first as ClaimedDelivery[];
      expect(d1).toMatchObject({ status: 'in_flight', eventId: 'e1', claim: 1, fence: null });
      expect(await queue.wakeTimes()).toEqual({ nextDueAt: null, oldestClaimAt: 1_000 });
      expect(
        await queue.recordAttempt(
          d1!,
          { ...attempt, statusCode: 200, outcome: 'delivered' },
          { status: 'delivered', nextAttemptAt: 2_000 },
        ),
      ).toBe(true);
      expect(ids(await queue.claimDue(2_000, 10, claimOptions))).toEqual([2]);
      expect(await outbox.history.counts()).toEqual({ pending: 0, in_flight: 2, delivered: 1, failed: 0 });
    });

    it('keeps a retried head pending until it is due, and the rest of its chain behind it', async () => {
      const { queue, enqueue } = await open();
      await enqueue('ep_1', 'e1');
      await enqueue('ep_1', 'e2');
      const [d1] = (await queue.claimDue(1_000, 10, claimOptions)) as ClaimedDelivery[];
      expect(await queue.recordAttempt(d1!, attempt, { status: 'pending', nextAttemptAt: 5_000 })).toBe(true);
      expect(await queue.wakeTimes()).toEqual({ nextDueAt: 5_000, oldestClaimAt: null });
      expect(ids(await queue.claimDue(4_999, 10, claimOptions))).toEqual([]);
      expect(await queue.claimDue(5_000, 10, claimOptions)).toMatchObject([{ id: 1, attempts: 1, claim: 2 }]);
    });

    it('holds each endpoint to its cap, one at a time and paced for chat endpoints', async () => {
      const { queue, enqueue, outbox } = await open();
      await outbox.endpoints.createEndpoint(newEndpoint('ep_chat', { kind: 'slack' }));
      for (const s of ['r1', 'r2', 'r3']) await enqueue('ep_1', `e-${s}`, s);
      for (const s of ['r1', 'r2']) await enqueue('ep_chat', `c-${s}`, s);
      expect(ids(await queue.claimDue(1_000, 10, claimOptions))).toEqual([1, 2, 4]);
      expect((await outbox.endpoints.endpoint('ep_chat'))?.pausedUntil).toBe(2_000);
      expect(ids(await queue.claimDue(3_000, 10, claimOptions))).toEqual([]);
    });

    it('refuses a claim with a fencing token below the mark, on a backend that keeps one', async () => {
      const { queue, enqueue } = await open();
      await enqueue('ep_1', 'e1');
      const claimed = await queue.claimDue(1_000, 10, { ...claimOptions, fence: 7 });
      expect(claimed).toMatchObject([{ id: 1, fence: 7 }]);
      await enqueue('ep_1', 'e2', 'race-2');
      const stale = await queue.claimDue(1_000, 10, { ...claimOptions, fence: 6 });
      // SQLite is one node's and keeps no mark (ports.ts): it claims the next head.
      expect(ids(stale)).toEqual(name === 'redis' ? 'fenced' : [2]);
    });

    it('records a late result as an attempt but leaves the delivery to its new claim', async () => {
      const { queue, enqueue, outbox } = await open();
      await enqueue('ep_1', 'e1');
      const [old] = (await queue.claimDue(1_000, 10, claimOptions)) as ClaimedDelivery[];
      expect(await queue.recoverInFlight({ claimedBefore: 999 })).toBe(0);
      expect(await queue.recoverInFlight({ claimedBefore: 1_000 })).toBe(1);
      const [now] = (await queue.claimDue(1_500, 10, claimOptions)) as ClaimedDelivery[];
      expect(await queue.recordAttempt(old!, attempt, { status: 'failed', nextAttemptAt: 2_000 })).toBe(
        false,
      );
      expect(await queue.recoverInFlight([{ id: old!.id, claim: old!.claim }])).toBe(0);
      expect(await outbox.history.delivery(1)).toMatchObject({ status: 'in_flight', attempts: 0 });
      expect((await outbox.history.attempts(1)).map((a) => [a.claim, a.outcome])).toEqual([
        [old!.claim, 'retry'],
      ]);
      expect(await queue.recoverInFlight([{ id: now!.id, claim: now!.claim }])).toBe(1);
      expect(await outbox.history.delivery(1)).toMatchObject({ status: 'pending' });
    });

    it('replays a delivery and a time range as new deliveries with the same event id and body', async () => {
      const { queue, enqueue, outbox, clock } = await open();
      await enqueue('ep_1', 'e1');
      clock.at = 2_000;
      await enqueue('ep_1', 'e2');
      clock.at = 3_000;
      expect(await queue.replay(1)).toMatchObject({ id: 3, eventId: 'e1', replayOf: 1, createdAt: 3_000 });
      expect(await outbox.history.body(3)).toBe('body:e1');
      expect(await queue.replay(99)).toBeUndefined();
      // Originals only: the replay made at 3 000 is not replayed again.
      expect(await queue.replayRange('ep_1', 1_500, 3_000)).toBe(1);
      expect(await outbox.history.delivery(4)).toMatchObject({ eventId: 'e2', replayOf: 2 });
      expect(
        await queue.enqueue({ endpointId: 'ep_none', event: raceEvent('x'), body: 'x' }),
      ).toBeUndefined();
    });

    it('writes a feed batch only from the cursor and endpoints version it was planned against, once per event', async () => {
      const { queue, outbox } = await open();
      const { version } = await outbox.endpoints.enabledEndpoints();
      const deliveries = [{ endpointId: 'ep_1', event: raceEvent('e1'), body: 'b1' }];
      expect(await queue.feedCursor()).toBe(FEED_START);
      expect(
        await queue.enqueueFromFeed({ from: 'elsewhere', to: 'p1', endpointsVersion: version, deliveries }),
      ).toBe('stale');
      expect(
        await queue.enqueueFromFeed({
          from: FEED_START,
          to: 'p1',
          endpointsVersion: `${version}0`,
          deliveries,
        }),
      ).toBe('stale');
      expect(
        await queue.enqueueFromFeed({ from: FEED_START, to: 'p1', endpointsVersion: version, deliveries }),
      ).toEqual({ enqueued: 1 });
      expect(await queue.feedCursor()).toBe('p1');
      // The same event again (a cursor lost): not enqueued twice.
      expect(
        await queue.enqueueFromFeed({ from: 'p1', to: 'p2', endpointsVersion: version, deliveries }),
      ).toEqual({ enqueued: 0 });
      expect(await outbox.history.counts()).toMatchObject({ pending: 1 });
    });

    it('makes a paused endpoint due when its pause ends', async () => {
      const { queue, enqueue } = await open();
      await enqueue('ep_1', 'e1');
      await queue.pauseEndpoint('ep_1', 4_000);
      expect(await queue.wakeTimes()).toEqual({ nextDueAt: 4_000, oldestClaimAt: null });
      expect(ids(await queue.claimDue(3_999, 10, claimOptions))).toEqual([]);
      expect(ids(await queue.claimDue(4_000, 10, claimOptions))).toEqual([1]);
    });
  });
}
