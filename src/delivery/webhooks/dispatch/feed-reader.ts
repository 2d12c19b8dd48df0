/**
 * Feeds the outbox from the event log's feed, on every backend alike: the log writes each appended event to
 * its feed in the append's own transaction (SQLite) or script (Redis), and this reader enqueues what each
 * item owes after the outbox's cursor. Enqueueing and moving the cursor are one outbox step that first
 * checks the cursor and the endpoints are still those it read, so a crash or a second reader never loses nor
 * duplicates a delivery. What has been consumed is then trimmed from the feed. Run it on the node that
 * dispatches (the leader).
 */
import type { Clock } from '../../../clock.js';
import { throttledLog } from '../../../log-throttle.js';
import type { Logger } from '../../../logger.js';
import type { EventFeed } from '../../../store/ports.js';
import { createWakeLoop } from '../../../wake-loop.js';
import { formatBody } from '../formatters/index.js';
import type { BodyFormatter } from '../model.js';
import type { WebhookEndpoints, WebhookQueue } from '../ports.js';
import { planDeliveries } from './enqueue-plan.js';

export interface FeedReaderDeps {
  feed: EventFeed;
  outbox: {
    queue: Pick<WebhookQueue, 'feedCursor' | 'enqueueFromFeed'>;
    endpoints: Pick<WebhookEndpoints, 'enabledEndpoints'>;
  };
  clock: Clock;
  logger: Logger;
  /** How often to look at the feed when nothing kicks. */
  pollIntervalMs: number;
  /** @default formatBody */
  format?: BodyFormatter;
  /** Feed items per step. @default 100 */
  batch?: number;
  /** Called after deliveries were enqueued (to wake the dispatcher). */
  onEnqueued?: () => void;
}

/** One step: `stale` when the cursor or the endpoints moved meanwhile (read again; what was written of the
 * batch, if anything, is skipped then: ports.ts). */
export type FeedResult = { read: number; enqueued: number } | 'stale';

export function createFeedReader(deps: FeedReaderDeps) {
  const { feed, outbox, clock, logger } = deps;
  const format = deps.format ?? formatBody;
  const batch = deps.batch ?? 100;

  /** Enqueues what the next batch of feed items owes and moves the cursor past it, atomically. */
  async function feedOnce(): Promise<FeedResult> {
    const from = await outbox.queue.feedCursor();
    const { version, endpoints } = await outbox.endpoints.enabledEndpoints();
    const items = await feed.read(from, batch);
    const last = items.at(-1);
    if (!last) return { read: 0, enqueued: 0 };
    const deliveries = planDeliveries(
      items.map((i) => i.entry),
      endpoints,
      format,
    );
    const result = await outbox.queue.enqueueFromFeed({
      from,
      to: last.position,
      endpointsVersion: version,
      deliveries,
    });
    if (result === 'stale') return 'stale';
    // Owed to the outbox now: only items after the cursor are still needed. A failed trim is retried by the
    // next one, which covers everything before it.
    await feed.trim(last.position).catch((err) => logger.warn({ err }, 'webhook feed not trimmed'));
    return { read: items.length, enqueued: result.enqueued };
  }

  // Every poll interval while the store fails: one line a minute, with a count.
  const feedUnreadable = throttledLog({
    logger,
    level: 'error',
    message: 'webhook feed could not be read',
    wall: clock,
  });
  const loop = createWakeLoop(clock, async () => {
    try {
      const r = await feedOnce();
      if (r === 'stale') return 0;
      if (r.enqueued > 0) deps.onEnqueued?.();
      return r.read === batch ? 0 : deps.pollIntervalMs;
    } catch (err) {
      feedUnreadable(err);
      return deps.pollIntervalMs;
    }
  });

  return { feedOnce, start: loop.start, stop: loop.stop, kick: loop.kick };
}

export type FeedReader = ReturnType<typeof createFeedReader>;
