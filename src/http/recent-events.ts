/**
 * The recent events every node has seen on the bus, for `GET /v1/events/recent`: the board's feed starts
 * with them instead of empty. Odds moves and market events are many, so they keep a ring of their own and
 * cannot push the scratchings, results and the rest out. Bounded: `perRing` events each.
 */
import { MARKET_EVENT_TYPES, type RaceEvent } from '@racewire/client/protocol';
import type { LogEntry } from '../events/envelope.js';

export interface RecentEvents {
  add(entries: readonly LogEntry[]): void;
  /** Newest first, at most `limit`; without odds moves and market events unless asked. */
  list(opts: { limit: number; odds: boolean }): RaceEvent[];
}

const MANY: ReadonlySet<string> = new Set(['odds.changed', 'odds.pools_changed', ...MARKET_EVENT_TYPES]);

export function createRecentEvents(perRing = 100): RecentEvents {
  const odds: RaceEvent[] = [];
  const other: RaceEvent[] = [];
  return {
    add(entries) {
      for (const entry of entries) {
        if (entry.kind !== 'event') continue;
        const ring = MANY.has(entry.event.type) ? odds : other;
        ring.push(entry.event);
        if (ring.length > perRing) ring.shift();
      }
    },
    list({ limit, odds: withOdds }) {
      const all = withOdds ? [...other, ...odds] : [...other];
      // ISO 8601 UTC timestamps sort as strings; the sort is stable, so ties keep their arrival order.
      all.sort((a, b) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : 0));
      return all.slice(-limit).reverse();
    },
  };
}
