/**
 * Which endpoints want an event: its type (exact, a family like `market.*`, or `*`), the optional
 * race/meeting/country/code filters, and the endpoint's own market thresholds.
 */
import { matchesEventType } from '@racewire/client/protocol';
import type { RaceEvent } from '../../events/envelope.js';

export interface EndpointFilters {
  raceId?: string;
  meetingId?: string;
  /** Meeting country, e.g. `AUS`. Matched against the event data's `country` (see docs/webhooks.md). */
  country?: string;
  /** Racing code (meeting `category`): `T`, `H` or `G`. Matched against the event data's `category`. */
  category?: string;
  /** `market.big_bet` only from this stake (dollars). */
  minStake?: number;
  /** `odds.plunge` / `odds.drift` only from this move (percent, either way). */
  minMovePct?: number;
  /** `market.money_flow` only from this change of share (percentage points, either way). */
  minMoneyPoints?: number;
}

/** The data member each endpoint threshold reads, by event type. */
const THRESHOLDS: Record<string, [keyof EndpointFilters, string]> = {
  'market.big_bet': ['minStake', 'stake'],
  'odds.plunge': ['minMovePct', 'changePct'],
  'odds.drift': ['minMovePct', 'changePct'],
  'market.money_flow': ['minMoneyPoints', 'changePoints'],
};

/** Whether the event reaches the endpoint's threshold for its type (types without one always do). */
function meetsThreshold(filters: EndpointFilters, event: RaceEvent): boolean {
  const rule = THRESHOLDS[event.type];
  const min = rule ? filters[rule[0]] : undefined;
  if (!rule || typeof min !== 'number') return true;
  const value = asRecord(event.data)?.[rule[1]];
  return typeof value === 'number' && Math.abs(value) >= min;
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
  if (!matchesEventType(eventTypes, event.type)) return false;
  if (!meetsThreshold(filters, event)) return false;
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
