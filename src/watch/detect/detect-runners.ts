/**
 * Runner-level changes: scratchings (with a public-data `late` rule), reinstatements, runners added or
 * removed, and rider changes. `is_late_scratched` is partner-only and is never read.
 */
import type { DetectedRaceEvent, RaceContext } from '@racewire/client/protocol';
import type { DocRunner, RaceDocument } from '../track/normalise.js';
import {
  byRunnerNumber,
  DEFAULT_LATE_SCRATCH_HOURS,
  finite,
  runnerRef,
  runnersOf,
  str,
} from './detect-context.js';
import type { DetectOptions } from './detect-options.js';

/** Upstream's scratch time in ms: `scratch_time` (Unix seconds, 0 when unset), else `scr_time` (ISO). */
function upstreamScratchMs(r: DocRunner): number | null {
  const s = finite(r.scratch_time);
  if (s !== null && s > 0) return s * 1000;
  const iso = str(r.scr_time);
  const ms = iso ? Date.parse(iso) : Number.NaN;
  return Number.isFinite(ms) ? ms : null;
}

function scratched(
  race: RaceContext,
  next: RaceDocument,
  r: DocRunner,
  opts: DetectOptions,
): DetectedRaceEvent {
  const upstream = upstreamScratchMs(r);
  const at =
    upstream ?? (opts.observedAt !== undefined && Number.isFinite(opts.observedAt) ? opts.observedAt : null);
  const start = finite(next.race.advertised_start);
  const lateMs = (opts.lateScratchHours ?? DEFAULT_LATE_SCRATCH_HOURS) * 3_600_000;
  return {
    type: 'runner.scratched',
    data: {
      race,
      runner: runnerRef(r),
      scratchTime: at === null ? null : new Date(at).toISOString(),
      scratchTimeSource: upstream !== null ? 'upstream' : at !== null ? 'observed' : 'unknown',
      late: at !== null && start !== null && start > 0 && at >= start * 1000 - lateMs,
    },
  };
}

export function detectRunnerChanges(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
  opts: DetectOptions,
): DetectedRaceEvent[] {
  const before = runnersOf(prev);
  const after = runnersOf(next);
  const out: DetectedRaceEvent[] = [];
  const keys = byRunnerNumber(new Map([...before, ...after]));
  for (const key of keys) {
    const a = before.get(key);
    const b = after.get(key);
    if (!a && b) {
      out.push({ type: 'runner.added', data: { race, runner: runnerRef(b) } });
      continue;
    }
    if (a && !b) {
      out.push({ type: 'runner.removed', data: { race, runner: runnerRef(a) } });
      continue;
    }
    if (!a || !b) continue;
    if (a.is_scratched !== true && b.is_scratched === true) out.push(scratched(race, next, b, opts));
    if (a.is_scratched === true && b.is_scratched === false) {
      out.push({ type: 'runner.reinstated', data: { race, runner: runnerRef(b) } });
    }
    const fromJockey = str(a.jockey);
    const toJockey = str(b.jockey);
    if (
      fromJockey &&
      toJockey &&
      fromJockey.trim() !== '' &&
      toJockey.trim() !== '' &&
      fromJockey !== toJockey
    ) {
      out.push({
        type: 'runner.jockey_changed',
        data: { race, runner: runnerRef(b), from: fromJockey, to: toJockey },
      });
    }
  }
  return out;
}
