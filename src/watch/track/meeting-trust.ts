/**
 * The trust model (trust.ts) for a meeting's record from /meetings: a race missing from the meeting's list
 * (a truncated page) or a race's status going back (a lagging cache) is held until the same is seen in
 * consecutive lists spanning the confirmation time. New races and forward moves are believed at once.
 * Pure: the time comes in as `now`.
 */
import type { Meeting, RaceSummary } from '../../upstream/schemas.js';
import { claims, type PendingClaim, STATUS_RANK, type TrustOptions } from './trust.js';

export interface ReconciledMeeting {
  meeting: Meeting;
  pending: Record<string, PendingClaim>;
  held: string[];
}

export function reconcileMeeting(
  prev: Meeting,
  next: Meeting,
  before: Readonly<Record<string, PendingClaim>>,
  opts: TrustOptions & { now: number },
): ReconciledMeeting {
  const book = claims(before, opts);
  const byId = new Map(next.races.map((r) => [r.id, r]));
  const races: RaceSummary[] = next.races.map((race) => {
    const old = prev.races.find((r) => r.id === race.id);
    const from = old ? STATUS_RANK[old.status] : undefined;
    const to = STATUS_RANK[race.status];
    if (old && from !== undefined && to !== undefined && to < from) {
      if (!book.believe(`/races/${race.id}/status`, race.status)) return { ...race, status: old.status };
    }
    return race;
  });
  for (const old of prev.races) {
    if (!byId.has(old.id) && !book.believe(`/races/${old.id}`, 'absent')) races.push(old);
  }
  if (book.held.length === 0) return { meeting: next, pending: book.pending, held: book.held };
  // Upstream lists races by number; a held race goes back to its place.
  races.sort((a, b) => a.race_number - b.race_number || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { meeting: { ...next, races }, pending: book.pending, held: book.held };
}
