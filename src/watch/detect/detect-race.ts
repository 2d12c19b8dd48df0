/**
 * Race-level changes: status, abandonment, the jump, start time, track condition, protests.
 * A member that disappears is treated as missing data, never as a change to "nothing".
 */
import type { DetectedRaceEvent, RaceContext } from '@racewire/client/protocol';
import type { RaceDocument } from '../track/normalise.js';
import { finite, isoFromSeconds, str } from './detect-context.js';

/** Statuses that mean the race has been run. `Closed` (betting closed) is not one: the real data has
 * Closed races not yet run. */
const RUN_STATUSES: ReadonlySet<string> = new Set(['Interim', 'Final']);

const hasJumped = (race: RaceDocument['race']): boolean =>
  (finite(race.actual_start) ?? 0) > 0 || RUN_STATUSES.has(race.status);

/**
 * What the payload says of a protest. The real list keeps `protest: true` once a protest is decided and
 * says how in `protest_reason` ("Protest UPHELD 2nd (#4) vs 1st (#3)", "Protest DISMISSED - ...", or a
 * stewards' disqualification, which moves placings as an upheld protest does). Upstream may omit `protest`
 * when there is none, so absent counts as none.
 */
export function protestStatus(race: RaceDocument['race']): 'none' | 'lodged' | 'upheld' | 'dismissed' {
  if (race.protest !== true) return 'none';
  const reason = str(race.protest_reason) ?? '';
  if (/\bdismiss/i.test(reason)) return 'dismissed';
  if (/\bupheld\b|disqualif/i.test(reason)) return 'upheld';
  return 'lodged';
}

export function detectRaceChanges(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
): DetectedRaceEvent[] {
  const a = prev.race;
  const b = next.race;
  const out: DetectedRaceEvent[] = [];

  if (a.status !== b.status && typeof b.status === 'string') {
    out.push({ type: 'race.status_changed', data: { race, from: a.status, to: b.status } });
    if (b.status === 'Abandoned') out.push({ type: 'race.abandoned', data: { race, from: a.status } });
  }

  if (!hasJumped(a) && hasJumped(b)) {
    const actual = finite(b.actual_start);
    const advertised = finite(b.advertised_start);
    const known = actual !== null && actual > 0;
    out.push({
      type: 'race.jumped',
      data: {
        race,
        actualStart: known ? isoFromSeconds(actual) : null,
        delaySeconds: known && advertised !== null && advertised > 0 ? actual - advertised : null,
      },
    });
  }

  const fromStart = finite(a.advertised_start);
  const toStart = finite(b.advertised_start);
  if (fromStart !== null && toStart !== null && fromStart > 0 && toStart > 0 && fromStart !== toStart) {
    out.push({
      type: 'race.start_time_changed',
      data: {
        race,
        from: isoFromSeconds(fromStart)!,
        to: isoFromSeconds(toStart)!,
        deltaSeconds: toStart - fromStart,
      },
    });
  }

  const fromTrack = str(a.track_condition);
  const toTrack = str(b.track_condition);
  if (fromTrack && toTrack && fromTrack.trim() !== '' && toTrack.trim() !== '' && toTrack !== fromTrack) {
    out.push({ type: 'race.track_condition_changed', data: { race, from: fromTrack, to: toTrack } });
  }

  const fromProtest = protestStatus(a);
  const toProtest = protestStatus(b);
  if (toProtest !== fromProtest && (toProtest !== 'none' || fromProtest !== 'none')) {
    const reason = str(b.protest_reason);
    out.push({
      type: 'race.protest',
      data: {
        race,
        status: toProtest === 'none' ? 'resolved' : toProtest,
        reason: reason && reason !== '' ? reason : null,
      },
    });
  }
  return out;
}
