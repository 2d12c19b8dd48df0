/**
 * What every detector shares: the race and runner context copied into event payloads. Only
 * public fields are read here, so no partner-only field can reach an event.
 */
import type { RaceContext, RunnerRef } from '@racewire/client/protocol';
import type { DocRunner, RaceDocument } from '../track/normalise.js';

export const DEFAULT_SIGNIFICANT_MOVE_PCT = 10;
export const DEFAULT_LATE_SCRATCH_HOURS = 12;

export type Rec = Record<string, unknown>;
export const isRecord = (v: unknown): v is Rec => v !== null && typeof v === 'object' && !Array.isArray(v);

export const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
export const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * An entrant id as runners carry it (a lower-case uuid), from what a bet or market record holds: a uuid
 * string (the real API) or the 16 bytes of one as an array of integers (the official description's type).
 * Null for anything else: such an id can match no runner.
 */
export function entrantIdOf(v: unknown): string | null {
  if (typeof v === 'string') return UUID.test(v) ? v.toLowerCase() : null;
  if (!Array.isArray(v) || v.length !== 16) return null;
  if (!v.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) return null;
  const hex = v.map((b: number) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** ISO 8601 for Unix seconds; null when not a usable time. */
export const isoFromSeconds = (s: unknown): string | null => {
  const n = finite(s);
  return n !== null && n > 0 ? new Date(n * 1000).toISOString() : null;
};

export function raceContext(doc: RaceDocument): RaceContext {
  const r = doc.race;
  const ctx: RaceContext = {
    raceId: r.event_id,
    meetingId: r.meeting_id,
    meetingName: r.meeting_name,
    raceNumber: r.race_number,
    raceName: r.description,
    advertisedStart: isoFromSeconds(r.advertised_start) ?? '',
    status: r.status,
  };
  if (typeof r.type === 'string') ctx.category = r.type;
  if (typeof r.country === 'string') ctx.country = r.country;
  return ctx;
}

export const runnerRef = (r: DocRunner): RunnerRef => ({
  entrantId: r.entrant_id,
  runnerNumber: r.runner_number,
  name: r.name,
  barrier: r.barrier,
});

/** A document's runners that look like runners (the schema checked them, but documents come from storage too). */
export function runnersOf(doc: RaceDocument): Map<string, DocRunner> {
  const out = new Map<string, DocRunner>();
  const runners = isRecord(doc.runners) ? doc.runners : {};
  for (const [key, r] of Object.entries(runners)) {
    if (isRecord(r) && typeof r.entrant_id === 'string' && typeof r.runner_number === 'number') {
      out.set(key, r as DocRunner);
    }
  }
  return out;
}

/** Keys of `map` in runner-number order (then key), so events come out in a stable order. */
export function byRunnerNumber(map: Map<string, DocRunner>): string[] {
  return [...map.keys()].sort((a, b) => {
    const d = map.get(a)!.runner_number - map.get(b)!.runner_number;
    return d !== 0 ? d : a < b ? -1 : a > b ? 1 : 0;
  });
}
