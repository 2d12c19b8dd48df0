/**
 * The market side of the fault fuzz's truth (issue 22's real structures) and the oracle's judgement of the
 * market events it leads to. On a share of seeds the race carries the real mover and money tracker and then
 * names an entrant outside the field (outside-field.json: a "Live Racing" mover, tracker rows for ids not in
 * `runners`); on another share it lists the meeting's bets of big-bets.json one by one (Multis with legs on
 * other races, `selections` null, a Quadrella leg with race number 0, a uuid entrant id as a byte array).
 *
 * `market.big_bet` is judged in full: each one is a bet the truth listed by then, on this race, named only
 * on runners it is on, reported once, and every bet of this race at or above the threshold is reported.
 * `market.money_flow` is judged for "no false event" only: its memory is the process's (a restart starts it
 * empty, docs/events.md), so a true flow may go unreported after a fault, but what it says must be true.
 * The mover is a fact of fault-fuzz.ts (`moverFact`), followed like a price.
 */

import { readFileSync } from 'node:fs';
import type { DetectedRaceEvent } from '@racewire/client/protocol';
import { entrantIdOf } from '../../src/watch/detect/detect-context.js';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';
import { moneyShares } from '../../src/watch/detect/money-flow.js';
import type { RaceDocument } from '../../src/watch/track/normalise.js';
import { BIG_BETS } from '../watch/real-variants.js';
import type { Loose } from '../watch/support.js';

const OUTSIDE: Loose = JSON.parse(
  readFileSync(new URL('../fixtures/real-variants/outside-field.json', import.meta.url), 'utf8'),
);
const MOVER_KEPT = ['entrant_id', 'name', 'market_name', 'primary_market', 'odds'];

export interface MarketPlan {
  outside: boolean;
  bets: boolean;
  /** Steps at which the mover leaves the field, comes back (-1: never), and money moves. */
  moverOut: number;
  moverBack: number;
  moneyOutside: number;
  moneyInField: number;
  /** The step each bet of big-bets.json is first listed at. */
  betAt: number[];
}

/** The plan, drawn from its own stream so the seed's other draws stay as they were. */
export function planMarket(
  draw: { int: (lo: number, hi: number) => number; chance: (p: number) => boolean },
  closeAt: number,
  outside: boolean,
  bets: boolean,
): MarketPlan {
  const moverOut = draw.int(3, closeAt - 6);
  return {
    outside,
    bets,
    moverOut,
    moverBack: draw.chance(0.5) ? draw.int(moverOut + 2, closeAt - 1) : -1,
    moneyOutside: draw.int(2, closeAt - 2),
    moneyInField: draw.int(2, closeAt - 2),
    betAt: BIG_BETS.map((_, k) => 1 + Math.floor(((k + 1) * (closeAt - 2)) / (BIG_BETS.length + 1))),
  };
}

const realMover = (real: Loose): Loose =>
  Object.fromEntries(MOVER_KEPT.map((k) => [k, structuredClone(real.mover[k])]));

/** The first truth state's market members: the real mover and money tracker, an empty bet list. */
export function marketBase(data: Loose, real: Loose, plan: MarketPlan): void {
  if (plan.outside) {
    data.mover = realMover(real);
    data.money_tracker = {
      entrants: [
        ...structuredClone(real.money_tracker.entrants),
        ...structuredClone(OUTSIDE.money_tracker_rows),
      ],
    };
  }
  if (plan.bets) data.big_bets = [];
}

/** The market change at truth step `i` (before the race closes), applied to `data` in place. */
export function marketStep(data: Loose, real: Loose, i: number, plan: MarketPlan): void {
  if (plan.outside) {
    if (i === plan.moverOut) data.mover = { ...data.mover, ...structuredClone(OUTSIDE.mover) };
    if (i === plan.moverBack) data.mover = realMover(real);
    const rows: Loose[] = data.money_tracker.entrants;
    if (i === plan.moneyOutside)
      rows.find((x) => x.entrant_id === OUTSIDE.mover.entrant_id).hold_percentage += 6;
    if (i === plan.moneyInField)
      rows.find((x) => x.entrant_id === real.mover.entrant_id).hold_percentage += 7;
  }
  if (plan.bets) {
    BIG_BETS.forEach((bet, k) => {
      if (plan.betAt[k] === i) data.big_bets = [...data.big_bets, structuredClone(bet)];
    });
  }
}

/** The mover a document names, as the fact the oracle follows: its id and whether it is a runner. */
export function moverFact(doc: RaceDocument): string | undefined {
  const id = (doc.mover as Loose)?.entrant_id;
  if (typeof id !== 'string') return undefined;
  const inField = Object.values(doc.runners as Record<string, Loose>).some((r) => r.entrant_id === id);
  return `${id}|${inField}|${inField ? id : '-'}`;
}

/** What a `race.mover_changed` says, in `moverFact`'s terms (`to` is the runner it names, if any). */
export const moverClaim = (d: Loose): string =>
  `${d.entrant.entrantId}|${d.entrant.inField}|${d.to?.entrantId ?? '-'}`;

const betKey = (b: Loose) => `${new Date(b.place_time).toISOString()}|${b.title}|${b.stake}`;

/** The oracle of `market.big_bet` and `market.money_flow` over one case's truth. */
export class MarketOracle {
  private readonly reported = new Set<string>();

  constructor(
    private readonly seed: number,
    private readonly truth: readonly Loose[],
    private readonly truthDocs: readonly RaceDocument[],
  ) {}

  /** Failures of one emitted market event at truth `step`; undefined when it is not a market event. */
  judge(event: DetectedRaceEvent, step: number): string[] | undefined {
    if (event.type === 'market.big_bet') return this.bet(event.data as Loose, step);
    if (event.type === 'market.money_flow') return this.flow(event.data as Loose, step);
    return undefined;
  }

  /** Every bet of this race at or above the threshold that the final truth lists and was not reported. */
  missed(): string[] {
    const last = this.truth.at(-1);
    return (last?.big_bets ?? [])
      .filter((b: Loose) => b.stake >= DEFAULT_MARKET_THRESHOLDS.bigBetMinStake && this.onThisRace(b, last))
      .filter((b: Loose) => !this.reported.has(betKey(b)))
      .map((b: Loose) => `seed ${this.seed}: missed: market.big_bet ${betKey(b)}`);
  }

  private onThisRace(bet: Loose, data: Loose): boolean {
    return bet.legs.some(
      (l: Loose) => !(l.race?.race_number > 0) || l.race.race_number === data.race.race_number,
    );
  }

  private bet(d: Loose, step: number): string[] {
    const fail = (why: string) => [
      `seed ${this.seed}: false market.big_bet ${d.placedAt} ${d.product}: ${why}`,
    ];
    const data = this.truth[step];
    const key = `${d.placedAt}|${d.product}|${d.stake}`;
    const bet = (data.big_bets ?? []).find((b: Loose) => betKey(b) === key);
    if (!bet) return fail('the truth did not list it by then');
    if (!this.onThisRace(bet, data)) return fail('no leg of it is this race');
    if (this.reported.has(key)) return fail('reported twice');
    this.reported.add(key);
    if (d.legs.length !== bet.legs.length)
      return fail(`${d.legs.length} legs, the bet has ${bet.legs.length}`);
    const field = new Set(data.runners.map((r: Loose) => r.entrant_id));
    const out: string[] = [];
    bet.legs.forEach((leg: Loose, k: number) => {
      const thisRace = leg.race?.race_number === data.race.race_number;
      const ids = new Set(
        leg.selections === null
          ? [entrantIdOf(leg.race?.entrant_id)]
          : leg.selections.flatMap((s: Loose) => s.entrants.map((e: Loose) => entrantIdOf(e.entrant_id))),
      );
      for (const s of d.legs[k].selections as Loose[]) {
        const inField = thisRace && s.entrantId !== null && field.has(s.entrantId);
        if (s.entrantId !== null && !ids.has(s.entrantId))
          out.push(...fail(`leg ${k + 1} names ${s.entrantId}, not on it`));
        if (s.inField !== inField) out.push(...fail(`leg ${k + 1}: ${s.entrantId} inField ${s.inField}`));
      }
    });
    for (const s of d.selections as Loose[]) {
      if (s.inField && !field.has(s.entrantId)) out.push(...fail(`selection ${s.entrantId} is not a runner`));
    }
    return out;
  }

  private flow(d: Loose, step: number): string[] {
    const fail = (why: string) => [
      `seed ${this.seed}: false market.money_flow ${d.entrant.entrantId}: ${why}`,
    ];
    const id = d.entrant.entrantId;
    const inField = this.truth[step].runners.some((r: Loose) => r.entrant_id === id);
    if (d.entrant.inField !== inField) return fail(`inField ${d.entrant.inField}`);
    if ((d.runner?.entrantId ?? null) !== (inField ? id : null))
      return fail(`names runner ${d.runner?.entrantId}`);
    const shares = this.truthDocs.slice(0, step + 1).map((doc) => moneyShares(doc)?.get(id));
    if (!shares.includes(d.to) || !shares.includes(d.from))
      return fail(`${d.from} -> ${d.to}, never the truth's shares`);
    return [];
  }
}
