/**
 * The feed reader's contract, on every outbox backend: every event of the log's feed is enqueued once per
 * matching endpoint, whatever crashes, lost replies, second readers or endpoint changes happen between the
 * read and the write; the cursor is the outbox's, and what is consumed is trimmed from the feed.
 */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import { createFeedReader } from '../../../src/delivery/webhooks/dispatch/feed-reader.js';
import type { NewEndpoint } from '../../../src/delivery/webhooks/model.js';
import type { Outbox } from '../../../src/delivery/webhooks/ports.js';
import { type EventFeed, FEED_START } from '../../../src/store/ports.js';
import type { BackendFactory } from './backends.js';
import { eventEntry, resetSeqs, silentLogger, until } from './helpers.js';
import { newEndpoint } from './port-fixtures.js';

/** The outbox with its feed writes held at a gate: a reader that has read and planned, but not written. */
function gated(outbox: Outbox) {
  let open: () => void = () => {};
  const gate = new Promise<void>((r) => {
    open = r;
  });
  let reached = false;
  const held: Outbox = {
    ...outbox,
    queue: {
      ...outbox.queue,
      async enqueueFromFeed(step) {
        reached = true;
        await gate;
        return outbox.queue.enqueueFromFeed(step);
      },
    },
  };
  return { outbox: held, reached: () => reached, release: () => open() };
}

export function feedReaderContract(name: string, factory: BackendFactory): void {
  const setup = async () => {
    resetSeqs();
    const backend = await factory();
    const clock = createManualClock(Date.parse('2026-11-22T10:00:00Z'));
    const store = backend.store(() => clock.now());
    const { outbox, feed } = store;
    const reader = (opts: { outbox?: Outbox; batch?: number; feed?: EventFeed } = {}) =>
      createFeedReader({
        feed: opts.feed ?? feed,
        outbox: opts.outbox ?? backend.store(() => clock.now()).outbox,
        clock,
        logger: silentLogger,
        pollIntervalMs: 60_000,
        batch: opts.batch,
      });
    const append = async (n: number, type = 'race.results') => {
      const entries = Array.from({ length: n }, (_, i) => eventEntry(type, {}, { raceId: `race-${i % 2}` }));
      return backend.append(entries);
    };
    const addEndpoint = (id: string, e: Partial<NewEndpoint> = {}) =>
      outbox.endpoints.createEndpoint(newEndpoint(id, e));
    const events = async (endpointId: string) =>
      (await outbox.history.listDeliveries(endpointId, { limit: 1000 })).map((d) => d.eventId).reverse();
    const feedLength = async () => (await feed.read(FEED_START, 1000)).length;
    return { backend, outbox, feed, clock, reader, append, addEndpoint, events, feedLength };
  };

  describe(`webhook feed reader: ${name}`, () => {
    it('enqueues each event once per matching endpoint across a crash before, or a reply lost after, its write', async () => {
      const t = await setup();
      await t.addEndpoint('ep_all');
      await t.addEndpoint('ep_results', { eventTypes: ['race.results'] });
      await t.addEndpoint('ep_off', { enabled: false });
      await t.append(2, 'race.results');
      await t.append(1, 'runner.scratched');

      // A reader reads and plans the batch, then dies before its one atomic write.
      const dying = gated(t.outbox);
      const write = t.reader({ outbox: dying.outbox }).feedOnce();
      await until(dying.reached, 'the first reader planned its write');
      // The restarted node reads the same batch after the same cursor.
      expect(await t.reader().feedOnce()).toEqual({ read: 3, enqueued: 5 });
      // Had the dead reader's write gone out late, it would change nothing.
      dying.release();
      expect(await write).toBe('stale');

      // A reply lost after the write: the cursor moved with the deliveries, so nothing is read again.
      expect(await t.reader().feedOnce()).toEqual({ read: 0, enqueued: 0 });
      // A crash after the write but before the trim, and then a lost cursor: the item is read again, but
      // nothing is enqueued twice.
      await t.append(1, 'runner.scratched');
      const untrimmed = { read: t.feed.read, trim: async () => {} };
      expect(await t.reader({ feed: untrimmed }).feedOnce()).toEqual({ read: 1, enqueued: 1 });
      await t.backend.loseCursor();
      expect(await t.reader().feedOnce()).toEqual({ read: 1, enqueued: 0 });

      expect(await t.events('ep_all')).toEqual(['race-0:1', 'race-1:1', 'race-0:2', 'race-0:3']);
      expect(await t.events('ep_results')).toEqual(['race-0:1', 'race-1:1']);
      expect(await t.events('ep_off')).toEqual([]);
      expect(await t.outbox.history.counts()).toEqual({ pending: 6, in_flight: 0, delivered: 0, failed: 0 });
      await t.backend.close();
    });

    it('keeps its cursor in the outbox: a new reader goes on after it, a batch at a time, and trims the feed', async () => {
      const t = await setup();
      await t.addEndpoint('ep_a');
      const first = await t.append(3);
      expect(await t.reader({ batch: 2 }).feedOnce()).toEqual({ read: 2, enqueued: 2 });
      expect(await t.outbox.queue.feedCursor()).toBe(first[1]);
      expect(await t.feedLength()).toBe(1);
      expect(await t.reader({ batch: 2 }).feedOnce()).toEqual({ read: 1, enqueued: 1 });
      expect(await t.outbox.queue.feedCursor()).toBe(first[2]);
      // Read items are owed to the outbox now: the feed keeps none of them.
      expect(await t.feedLength()).toBe(0);

      const later = await t.append(2);
      expect(await t.reader().feedOnce()).toEqual({ read: 2, enqueued: 2 });
      expect(await t.outbox.queue.feedCursor()).toBe(later[1]);
      expect(await t.events('ep_a')).toEqual(['race-0:1', 'race-1:1', 'race-0:2', 'race-0:3', 'race-1:2']);
      await t.backend.close();
    });

    it('lets two readers run at once: every event enqueued once, in feed order', async () => {
      const t = await setup();
      await t.addEndpoint('ep_a');
      await t.addEndpoint('ep_b');
      await t.append(60);
      const drain = async (reader: ReturnType<typeof t.reader>) => {
        for (;;) {
          const r = await reader.feedOnce();
          if (r !== 'stale' && r.read === 0) return;
        }
      };
      await Promise.all([drain(t.reader({ batch: 7 })), drain(t.reader({ batch: 5 }))]);
      const expected = Array.from({ length: 60 }, (_, i) => `race-${i % 2}:${Math.floor(i / 2) + 1}`);
      expect(await t.events('ep_a')).toEqual(expected);
      expect(await t.events('ep_b')).toEqual(expected);
      await t.backend.close();
    });

    it('refuses a batch planned against endpoints that changed meanwhile, and plans it again', async () => {
      const t = await setup();
      await t.addEndpoint('ep_a');
      await t.append(1);
      const slow = gated(t.outbox);
      const write = t.reader({ outbox: slow.outbox }).feedOnce();
      await until(slow.reached, 'planned with ep_a enabled');
      await t.outbox.endpoints.disableEndpoint('ep_a', 'by hand');
      slow.release();
      expect(await write).toBe('stale');
      expect(await t.reader().feedOnce()).toEqual({ read: 1, enqueued: 0 });
      expect(await t.events('ep_a')).toEqual([]);
      await t.backend.close();
    });
  });
}
