/**
 * `market.big_bet`: a bet of at least the threshold that this payload lists for the first time, from the
 * `big_bets`, `live_bets` and `biggest_bet` members (with_big_bets, with_live_bets, with_biggest_bet).
 * Bets carry no id, so a bet is known by what it is: place time, product, stake and selections. Upstream
 * lists only the newest bets, so the previous payload's lists are the memory: a bet they held is not new,
 * nor is one older than the oldest bet they held (it may have scrolled out of a full list), nor anything
 * while the previous payload listed no bets at all (the options were off: everything would look new).
 */
import type { BetSelection, BigBetData, DetectedRaceEvent, RaceContext } from '@racewire/client/protocol';
import { finite, isRecord, type Rec, runnersOf, str } from './detect-context.js';
import type { MarketThresholds } from './market-thresholds.js';
import type { RaceDocument } from './normalise.js';

const BET_MEMBERS = ['big_bets', 'live_bets'] as const;

interface Bet {
  key: string;
  at: number;
  placedAt: string;
  record: Rec;
}

/** The bet's selections: its legs' selection entrants, else the leg race's single entrant. */
function selectionsOf(bet: Rec): Omit<BetSelection, 'entrantId'>[] {
  const out: Omit<BetSelection, 'entrantId'>[] = [];
  for (const leg of Array.isArray(bet.legs) ? bet.legs : []) {
    if (!isRecord(leg)) continue;
    for (const sel of Array.isArray(leg.selections) ? leg.selections : []) {
      if (!isRecord(sel)) continue;
      const position = finite(sel.position) ?? out.length + 1;
      for (const e of Array.isArray(sel.entrants) ? sel.entrants : []) {
        const runnerNumber = isRecord(e) ? finite(e.entrant_number) : null;
        if (isRecord(e) && runnerNumber !== null)
          out.push({ position, runnerNumber, name: str(e.entrant_name) ?? '' });
      }
    }
    const race = isRecord(leg.race) ? leg.race : undefined;
    const single = finite(race?.entrant_number);
    if (out.length === 0 && single !== null)
      out.push({ position: 1, runnerNumber: single, name: str(race?.entrant_name) ?? '' });
  }
  return out;
}

function betOf(v: unknown): Bet | undefined {
  if (!isRecord(v)) return undefined;
  const placedAt = str(v.place_time);
  const at = placedAt ? Date.parse(placedAt) : Number.NaN;
  const stake = finite(v.stake);
  if (!placedAt || !Number.isFinite(at) || stake === null) return undefined;
  const picks = selectionsOf(v)
    .map((s) => `${s.position}:${s.runnerNumber}`)
    .join(',');
  return { key: `${placedAt}|${str(v.title) ?? ''}|${stake}|${picks}`, at, placedAt, record: v };
}

/** Every bet a document lists, by key; undefined when it lists none of the bet members (options off). */
function betsOf(doc: RaceDocument): Map<string, Bet> | undefined {
  const lists = BET_MEMBERS.map((m) => doc[m]).filter(Array.isArray);
  const biggest = betOf(doc.biggest_bet);
  if (lists.length === 0 && !biggest) return undefined;
  const out = new Map<string, Bet>();
  for (const item of lists.flat()) {
    const bet = betOf(item);
    if (bet) out.set(bet.key, bet);
  }
  if (biggest) out.set(biggest.key, biggest);
  return out;
}

export function detectBigBets(
  prev: RaceDocument,
  next: RaceDocument,
  race: RaceContext,
  th: Pick<MarketThresholds, 'bigBetMinStake'>,
): DetectedRaceEvent[] {
  const known = betsOf(prev);
  const now = betsOf(next);
  if (!known || !now) return [];
  // An empty list is a race with no bets yet: everything after it is new.
  const oldest =
    known.size > 0 ? Math.min(...[...known.values()].map((b) => b.at)) : Number.NEGATIVE_INFINITY;
  const biggest = betOf(next.biggest_bet)?.key;
  const runners = [...runnersOf(next).values()];
  const fresh = [...now.values()]
    .filter((b) => !known.has(b.key) && b.at >= oldest && (finite(b.record.stake) ?? 0) >= th.bigBetMinStake)
    .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : 1));
  return fresh.map((b) => {
    const odds = finite(b.record.place_odds);
    const data: BigBetData = {
      race,
      product: str(b.record.title) ?? '',
      stake: finite(b.record.stake) as number,
      odds: odds !== null && odds > 0 ? odds : null,
      placedAt: new Date(b.at).toISOString(),
      selections: selectionsOf(b.record).map((s) => ({
        ...s,
        entrantId: runners.find((r) => r.runner_number === s.runnerNumber)?.entrant_id ?? null,
      })),
      biggest: b.key === biggest,
    };
    return { type: 'market.big_bet' as const, data };
  });
}
