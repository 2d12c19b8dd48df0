/**
 * Market events (docs/events.md#market-events): plunges and drifts, big bets, money flow, the market mover,
 * deductions after a scratching and tote pool milestones. Pure, like every detector: the only memory is the
 * race's `MoneyMemory`, a value in and out (the money tracker has no times), and thresholds come from
 * `market-thresholds.ts`.
 */
import type { DetectedRaceEvent, MarketEntrant, RaceContext, RunnerRef } from '@racewire/client/protocol';
import type { DocRunner, RaceDocument } from '../track/normalise.js';
import { detectBigBets } from './detect-bets.js';
import { byRunnerNumber, finite, isRecord, runnerRef, runnersOf, str } from './detect-context.js';
import type { MarketDetectOptions } from './detect-options.js';
import { detectPriceMoves, flucsOf } from './detect-price-moves.js';
import { DEFAULT_MARKET_THRESHOLDS } from './market-thresholds.js';
import { type MoneyMemory, observeMoney } from './money-flow.js';

interface Mover {
  entrant: MarketEntrant;
  runner: DocRunner | undefined;
}

/**
 * The entrant upstream names as the mover: the `mover` record's entrant (in the field or not: the real API
 * names entrants of other markets there), else the one runner flagged `mover`.
 */
function moverOf(doc: RaceDocument): Mover | undefined {
  const runners = [...runnersOf(doc).values()];
  const record = isRecord(doc.mover) ? doc.mover : undefined;
  const id = str(record?.entrant_id);
  if (record && id) {
    const runner = runners.find((r) => r.entrant_id === id);
    return { entrant: { entrantId: id, name: str(record.name), inField: runner !== undefined }, runner };
  }
  const flagged = runners.filter((r) => r.mover === true);
  const runner = flagged.length === 1 ? flagged[0]! : undefined;
  return runner && { entrant: { entrantId: runner.entrant_id, name: runner.name, inField: true }, runner };
}

function detectMoverChange(prev: RaceDocument, next: RaceDocument, race: RaceContext): DetectedRaceEvent[] {
  const a = moverOf(prev);
  const b = moverOf(next);
  if (!b || a?.entrant.entrantId === b.entrant.entrantId) return [];
  const win = b.runner && isRecord(b.runner.odds) ? finite(b.runner.odds.fixed_win) : null;
  const from: RunnerRef | null = a?.runner ? runnerRef(a.runner) : null;
  return [
    {
      type: 'race.mover_changed',
      data: {
        race,
        from,
        to: b.runner ? runnerRef(b.runner) : null,
        entrant: b.entrant,
        price: win,
        openPrice: b.runner ? (flucsOf(b.runner)[0]?.price ?? null) : null,
      },
    },
  ];
}

const deductionOf = (r: DocRunner | undefined): { win: number; place: number } | null => {
  const d = r?.deduction;
  if (!isRecord(d)) return null;
  const win = finite(d.win);
  const place = finite(d.place);
  return win !== null && place !== null && (win > 0 || place > 0) ? { win, place } : null;
};

function detectDeductions(prev: RaceDocument, next: RaceDocument, race: RaceContext): DetectedRaceEvent[] {
  const before = runnersOf(prev);
  const after = runnersOf(next);
  const out: DetectedRaceEvent[] = [];
  for (const key of byRunnerNumber(after)) {
    const r = after.get(key)!;
    const now = deductionOf(r);
    if (!now || r.is_scratched !== true) continue;
    const was = deductionOf(before.get(key));
    if (was && was.win === now.win && was.place === now.place) continue;
    out.push({ type: 'runner.deduction', data: { race, runner: runnerRef(r), ...now, previous: was } });
  }
  return out;
}

function detectPoolMilestones(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
  milestones: readonly number[],
): DetectedRaceEvent[] {
  const before = isRecord(prev.tote_pools) ? prev.tote_pools : {};
  const after = isRecord(next.tote_pools) ? next.tote_pools : {};
  const out: DetectedRaceEvent[] = [];
  for (const key of Object.keys(after).sort()) {
    const a = before[key];
    const b = after[key];
    if (!isRecord(a) || !isRecord(b)) continue;
    const from = finite(a.total);
    const to = finite(b.total);
    if (from === null || to === null || to <= from) continue;
    const passed = milestones.filter((m) => from < m && m <= to);
    const milestone = passed.at(-1);
    if (milestone === undefined) continue;
    out.push({
      type: 'pool.total',
      data: {
        race,
        pool: str(b.product_type) ?? key,
        milestone,
        total: to,
        previousTotal: from,
        status: str(b.status),
      },
    });
  }
  return out;
}

/** The market events, and the money memory after this observation (without one given, no money flow). */
export function detectMarketEvents(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
  opts: MarketDetectOptions = {},
  money?: MoneyMemory,
): { events: DetectedRaceEvent[]; money?: MoneyMemory } {
  const th = opts.thresholds ?? DEFAULT_MARKET_THRESHOLDS;
  const flow =
    money && opts.observedAt !== undefined
      ? observeMoney(money, next, opts.observedAt, race, th)
      : { memory: money, events: [] };
  const events = [
    ...detectPriceMoves(prev, next, race, th),
    ...detectMoverChange(prev, next, race),
    ...detectDeductions(prev, next, race),
    ...detectBigBets(prev, next, race, th),
    ...flow.events,
    ...detectPoolMilestones(prev, next, race, th.poolMilestones),
  ];
  return { events, money: flow.memory };
}
