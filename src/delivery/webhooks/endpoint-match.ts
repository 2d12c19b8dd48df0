/** Which endpoints want an event: its type, and the optional race/meeting/country/code filters. */
import type { RaceEvent } from '../../events/envelope.js';

export interface EndpointFilters {
  raceId?: string;
  meetingId?: string;
  /** Meeting country, e.g. `AUS`. Matched against the event data's `country` (see docs/webhooks.md). */
  country?: string;
  /** Racing code (meeting `category`): `T`, `H` or `G`. Matched against the event data's `category`. */
  category?: string;
}

const asRecord = (v: unknown): Record<string, unknown> | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;

/** Reads a string field from the event data, or from its `race` / `meeting` objects. */
export function dataString(event: RaceEvent, key: string): string | undefined {
  const data = asRecord(event.data);
  for (const holder of [data, asRecord(data?.race), asRecord(data?.meeting)]) {
    const v = holder?.[key];
    if (typeof v === 'string') return v;
  }
  return undefined;
}

/** `*` in `eventTypes` means every type. A filter on a field the event does not carry does not match. */
export function endpointWants(eventTypes: string[], filters: EndpointFilters, event: RaceEvent): boolean {
  if (!eventTypes.includes('*') && !eventTypes.includes(event.type)) return false;
  if (filters.raceId !== undefined && event.raceId !== filters.raceId) return false;
  if (filters.meetingId !== undefined && event.meetingId !== filters.meetingId) return false;
  if (
    filters.country !== undefined &&
    dataString(event, 'country')?.toUpperCase() !== filters.country.toUpperCase()
  )
    return false;
  if (filters.category !== undefined && dataString(event, 'category') !== filters.category) return false;
  return true;
}
