/**
 * `market.money_flow`: a runner's share of the race's money (the sum of its money tracker `hold_percentage`
 * rows) moves by at least the threshold within the window; an entrant the tracker lists outside the field
 * (the real API does) is reported as that entrant, with no runner. The money tracker carries no times, so the
 * shares seen before are remembered, per race, with the race-time instant each was observed: a
 * `MoneyMemory` value the race state carries (track-race.ts). It is bounded (samples older than the
 * window are dropped, at most MAX_SAMPLES per runner) and starts empty: after a restart or a hand-over the
 * first window is quieter, never wrong. A runner's samples restart from the share an event reports, so one
 * move is reported once.
 */
import type { DetectedRaceEvent, RaceContext } from '@racewire/client/protocol';
import type { RaceDocument } from '../track/normalise.js';
import { byRunnerNumber, finite, isRecord, runnerRef, runnersOf } from './detect-context.js';
import type { MarketThresholds } from './market-thresholds.js';

interface Sample {
  at: number;
  share: number;
}

const MAX_SAMPLES = 256;

/** Each runner's share of the money (percent), or undefined when the document has no money tracker. */
export function moneyShares(doc: RaceDocument): Map<string, number> | undefined {
  const mt = doc.money_tracker;
  if (!isRecord(mt) || !isRecord(mt.entrants)) return undefined;
  const out = new Map<string, number>();
  for (const rows of Object.values(mt.entrants)) {
    for (const row of Array.isArray(rows) ? rows : [rows]) {
      if (!isRecord(row) || typeof row.entrant_id !== 'string') continue;
      const hold = finite(row.hold_percentage);
      if (hold !== null) out.set(row.entrant_id, (out.get(row.entrant_id) ?? 0) + hold);
    }
  }
  return out.size > 0 ? out : undefined;
}

/**
 * A race's money memory, a value: each entrant's shares seen, oldest first, with the race-time instant each
 * was observed. `observeMoney` returns the next one; the race state (track-race.ts) carries it.
 */
export type MoneyMemory = ReadonlyMap<string, readonly Sample[]>;

export const EMPTY_MONEY: MoneyMemory = new Map();

/** About what a sample takes as JSON (`{"at":1752713000000,"share":12.3}`), for the race state's size. */
const SAMPLE_BYTES = 32;

/** The memory's size in bytes, roughly as JSON would take it: the race state cache is bounded in bytes. */
export function moneyBytes(memory: MoneyMemory): number {
  let bytes = 0;
  for (const [id, samples] of memory) bytes += id.length + samples.length * SAMPLE_BYTES;
  return bytes;
}

/**
 * Records `doc`'s shares observed at `at` in a copy of `memory` and returns it with the flows they complete.
 * A document without a money tracker (the option off, far from the jump) forgets what was seen: the next
 * window starts afresh.
 */
export function observeMoney(
  memory: MoneyMemory,
  doc: RaceDocument,
  at: number,
  race: RaceContext,
  th: MarketThresholds,
): { memory: MoneyMemory; events: DetectedRaceEvent[] } {
  const shares = moneyShares(doc);
  if (!shares || !Number.isFinite(at)) return { memory: EMPTY_MONEY, events: [] };
  const samples = new Map(memory);
  const windowMs = th.moneyWindowMinutes * 60_000;
  const runners = runnersOf(doc);
  const inField = new Set([...runners.values()].map((r) => r.entrant_id));
  // Runners in runner-number order, then the tracker's entrants outside the field (the real API lists
  // entrants of other markets) by id: their money is reported as theirs, never as a runner's.
  const entrants = [
    ...byRunnerNumber(runners).map((key) => ({
      id: runners.get(key)!.entrant_id,
      runner: runners.get(key),
    })),
    ...[...shares.keys()]
      .filter((id) => !inField.has(id))
      .sort()
      .map((id) => ({ id, runner: undefined })),
  ];
  const out: DetectedRaceEvent[] = [];
  for (const { id, runner } of entrants) {
    const share = shares.get(id);
    if (share === undefined || runner?.is_scratched === true) {
      samples.delete(id);
      continue;
    }
    const kept = (samples.get(id) ?? []).filter((s) => s.at >= at - windowMs && s.at <= at);
    // The trend over the window: from the oldest share still in it, not the most extreme one, so a
    // noisy tick that comes straight back is not a flow.
    const base = kept[0];
    const change = base === undefined ? 0 : Math.round((share - base.share) * 10) / 10;
    if (base && Math.abs(change) >= th.moneyFlowPoints) {
      out.push({
        type: 'market.money_flow',
        data: {
          race,
          runner: runner ? runnerRef(runner) : null,
          entrant: { entrantId: id, name: runner?.name ?? null, inField: runner !== undefined },
          from: base.share,
          to: share,
          changePoints: change,
          direction: change > 0 ? 'for' : 'against',
          window: {
            minutes: th.moneyWindowMinutes,
            from: new Date(base.at).toISOString(),
            to: new Date(at).toISOString(),
          },
        },
      });
      samples.set(id, [{ at, share }]);
      continue;
    }
    kept.push({ at, share });
    samples.set(id, kept.slice(-MAX_SAMPLES));
  }
  for (const id of samples.keys()) if (!shares.has(id)) samples.delete(id);
  return { memory: samples, events: out };
}
