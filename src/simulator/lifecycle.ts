/**
 * A race's lifecycle, cheap and without its field: an announced delay now and then, the jump (actual minus
 * advertised start drawn from the real races list of its region), the running, Interim, Final, the odd
 * protest, abandonment. /meetings reads only this, so listing a day builds no runners.
 */
import { change, MINUTE, SECOND } from './changes.js';
import { jumps } from './data.js';
import type { RaceStatic, TimedChange } from './model.js';
import { type Rng, rngFor } from './rng.js';

export type ProtestKind = 'upheld' | 'dismissed' | 'disqualified';

export interface Lifecycle {
  /** Advertised start after an announced delay (the advertised start when none). */
  start: number;
  delay: { at: number; minutes: number } | null;
  /** The jump: betting closes, `actual_start` is set. Infinity for an abandoned race. */
  closeAt: number;
  interimAt: number;
  interimDividendsAt: number;
  finalAt: number;
  abandonAt: number | null;
  protest: ProtestKind | null;
}

const NORTH_AMERICA = new Set(['USA', 'CA']);

/**
 * Seconds from the advertised start to the jump: one of the measured delays of the race's region (North
 * America runs later than the rest) picked at random, scaled by a log-normal jitter of 5 %, so values
 * between the measured ones occur. Interpolating linearly between the sorted values instead thinned the
 * sparse upper tail: over the real list's window the p90 came out 210 s and the longest 1 084 s against
 * 257 s and 1 423 s real, because the one measured value above 407 s was spread evenly down to 407 s.
 */
const JUMP_JITTER = 0.05;
function drawJump(rng: Rng, country: string): number {
  const sample = NORTH_AMERICA.has(country) ? jumps.northAmerica : jumps.elsewhere;
  const measured = sample[Math.floor(rng.next() * sample.length)] as number;
  return Math.max(5, Math.round(measured * Math.exp(JUMP_JITTER * rng.normal())));
}

/**
 * Protests and disqualifications decided at Final in the real day: 7 of 748 races (upheld protests 3,
 * dismissed 1, disqualifications 3); `protest` is true for every one of them.
 */
const PROTEST_RATE = 7 / 748;
const PROTEST_KINDS: ProtestKind[] = [
  'upheld',
  'upheld',
  'upheld',
  'dismissed',
  'disqualified',
  'disqualified',
  'disqualified',
];

export function lifecycleOf(seed: number, race: RaceStatic): Lifecycle {
  const rng = rngFor(seed, 'lifecycle', race.id);
  const S = race.advertisedStart;
  const category = race.meeting.category;
  const delayMinutes = !race.abandoned && rng.chance(0.05) ? rng.pick([2, 3, 5, 10]) : 0;
  const start = S + delayMinutes * MINUTE;
  const closeAt = race.abandoned
    ? Number.POSITIVE_INFINITY
    : start + drawJump(rng, race.meeting.country) * SECOND;
  const running = Math.round((race.distance / (category === 'G' ? 17 : category === 'H' ? 14 : 16)) * SECOND);
  const interimAt = closeAt + running + rng.int(20, 60) * SECOND;
  const protest = rng.chance(PROTEST_RATE) ? rng.pick(PROTEST_KINDS) : null;
  // A protest keeps the race at Interim longer while the stewards hear it.
  const finalAt = interimAt + (protest ? rng.int(8, 20) : rng.int(3, 8)) * MINUTE;
  return {
    start,
    delay: delayMinutes ? { at: S - rng.int(5, 20) * MINUTE, minutes: delayMinutes } : null,
    closeAt,
    interimAt,
    interimDividendsAt: interimAt + rng.int(20, 60) * SECOND,
    finalAt,
    abandonAt: race.abandoned ? S - rng.int(10, 90) * MINUTE : null,
    protest: race.abandoned ? null : protest,
  };
}

/** The lifecycle as changes: start time, status and the meeting's track downgrade. */
export function lifecycleChanges(race: RaceStatic, life: Lifecycle, nextSeq: () => number): TimedChange[] {
  const out: TimedChange[] = [];
  const add = (at: number, type: TimedChange['type'], detail: Record<string, unknown>) =>
    out.push(change(race, Math.round(at), nextSeq(), type, detail));
  const downgrade = race.meeting.downgrade;
  if (downgrade && race.advertisedStart > downgrade.at) {
    add(downgrade.at, 'track_condition', { from: race.meeting.trackCondition, to: downgrade.to });
  }
  if (life.abandonAt !== null) {
    add(life.abandonAt, 'status', { from: 'Open', to: 'Abandoned' });
    return out;
  }
  if (life.delay) {
    add(life.delay.at, 'start_time', {
      from: new Date(race.advertisedStart).toISOString(),
      to: new Date(life.start).toISOString(),
      minutes: life.delay.minutes,
    });
  }
  add(life.closeAt, 'status', { from: 'Open', to: 'Closed' });
  add(life.interimAt, 'status', { from: 'Closed', to: 'Interim' });
  add(life.finalAt, 'status', { from: 'Interim', to: 'Final' });
  return out;
}
