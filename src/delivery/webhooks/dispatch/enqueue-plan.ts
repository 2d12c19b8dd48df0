/**
 * Which deliveries a batch of log entries owes: one per event and matching endpoint whose kind sends a
 * message for it, with the body serialised once, here. Shared by the feed reader (both adapters) and the test event.
 */
import type { LogEntry, RaceEvent } from '../../../events/envelope.js';
import { endpointWants } from '../endpoint-match.js';
import type { BodyFormatter, Endpoint } from '../model.js';

export interface PlannedDelivery {
  endpointId: string;
  event: RaceEvent;
  body: string;
}

/** `endpoints` must be the enabled ones. */
export function planDeliveries(
  entries: readonly LogEntry[],
  endpoints: readonly Pick<Endpoint, 'id' | 'kind' | 'eventTypes' | 'filters'>[],
  format: BodyFormatter,
): PlannedDelivery[] {
  const planned: PlannedDelivery[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'event') continue;
    for (const ep of endpoints) {
      if (!endpointWants(ep.eventTypes, ep.filters, entry.event)) continue;
      const body = format(ep.kind, entry.event);
      if (body !== undefined) planned.push({ endpointId: ep.id, event: entry.event, body });
    }
  }
  return planned;
}
