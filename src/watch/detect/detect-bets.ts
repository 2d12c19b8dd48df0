/**
 * `market.big_bet`: a bet of at least the threshold that this payload lists for the first time, from the
 * `big_bets`, `live_bets` and `biggest_bet` members (with_big_bets, with_live_bets, with_biggest_bet).
 * Bets carry no id, so a bet is known by what it is: place time, product, stake and legs. Upstream lists
 * only the newest bets, so the previous payload's lists are the memory: a bet they held is not new, nor is
 * one older than the oldest bet they held (it may have scrolled out of a full list), nor anything while the
 * previous payload listed no bets at all (the options were off: everything would look new).
 *
 * The real API lists bets of the whole meeting: a Multi with legs on other races, a Pool Quadrella whose
 * one leg has race number 0. A bet is reported on this race when one of its legs is this race, or when a
 * leg's race is unknown (upstream put it here, and nothing says it is elsewhere); a bet whose legs are all
 * on other races is not. A selection names a runner only when its leg is this race and its entrant id is
 * one of this race's runners: never by number, barrier or name, which belong to the leg's own race.
 */
import type {
  BetLeg,
  BetSelection,
  BigBetData,
  DetectedRaceEvent,
  RaceContext,
} from '@racewire/client/protocol';
import type { RaceDocument } from '../track/normalise.js';
import { entrantIdOf, finite, isRecord, type Rec, runnersOf, str } from './detect-context.js';
import type { MarketThresholds } from './market-thresholds.js';

const BET_MEMBERS = ['big_bets', 'live_bets'] as const;

interface Bet {
  key: string;
  at: number;
  legs: RawLeg[];
  record: Rec;
}

const sameName = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

type RawSelection = Omit<BetSelection, 'inField'>;
type RawLeg = Omit<BetLeg, 'thisRace' | 'selections'> & { selections: RawSelection[] };

const selectionOf = (position: number, e: Rec): RawSelection => ({
  position,
  runnerNumber: finite(e.entrant_number),
  name: str(e.entrant_name) ?? '',
  entrantId: entrantIdOf(e.entrant_id),
});

/** The legs of a bet record as it gives them, before they are placed against a race. */
function rawLegsOf(bet: Rec): RawLeg[] {
  const out: RawLeg[] = [];
  for (const leg of Array.isArray(bet.legs) ? bet.legs : []) {
    if (!isRecord(leg)) continue;
    const info = isRecord(leg.race) ? leg.race : {};
    const number = finite(info.race_number);
    const selections: RawSelection[] = [];
    for (const sel of Array.isArray(leg.selections) ? leg.selections : []) {
      if (!isRecord(sel)) continue;
      const position = finite(sel.position) ?? selections.length + 1;
      for (const e of Array.isArray(sel.entrants) ? sel.entrants : []) {
        if (isRecord(e)) selections.push(selectionOf(position, e));
      }
    }
    // A single (Win, Place, Fixed Win) names its one entrant on the leg's race, with `selections` null.
    if (selections.length === 0 && (info.entrant_id !== undefined || info.entrant_number !== undefined)) {
      selections.push(selectionOf(1, info));
    }
    out.push({
      raceNumber: number !== null && number > 0 ? number : null,
      raceName: str(info.race_name) || null,
      meetingName: str(info.meeting_name) || null,
      selections,
    });
  }
  return out;
}

/** The legs placed against `race`: which is this race, which selection is one of its runners (`fieldIds`). */
function legsOf(raw: RawLeg[], race: RaceContext, fieldIds: ReadonlySet<string>): BetLeg[] {
  return raw.map((leg) => {
    const thisRace =
      leg.raceNumber === race.raceNumber &&
      (leg.meetingName === null || sameName(leg.meetingName, race.meetingName));
    const selections = leg.selections.map((s) => ({
      ...s,
      inField: thisRace && s.entrantId !== null && fieldIds.has(s.entrantId),
    }));
    return { ...leg, thisRace, selections };
  });
}

/** Whether a bet with these legs is about this race: a leg is, or a leg's race is unknown. */
const onThisRace = (legs: BetLeg[]) => legs.some((l) => l.thisRace || l.raceNumber === null);

function betOf(v: unknown): Bet | undefined {
  if (!isRecord(v)) return undefined;
  const placedAt = str(v.place_time);
  const at = placedAt ? Date.parse(placedAt) : Number.NaN;
  const stake = finite(v.stake);
  if (!placedAt || !Number.isFinite(at) || stake === null) return undefined;
  const legs = rawLegsOf(v);
  const picks = legs.map(
    (l) =>
      `${l.raceNumber ?? 0}/${l.selections.map((s) => `${s.position}:${s.entrantId ?? s.runnerNumber}`).join(',')}`,
  );
  return { key: `${placedAt}|${str(v.title) ?? ''}|${stake}|${picks.join(';')}`, at, legs, record: v };
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
  const fieldIds = new Set([...runnersOf(next).values()].map((r) => r.entrant_id.toLowerCase()));
  const fresh = [...now.values()]
    .filter((b) => !known.has(b.key) && b.at >= oldest && (finite(b.record.stake) ?? 0) >= th.bigBetMinStake)
    .sort((a, b) => a.at - b.at || (a.key < b.key ? -1 : 1));
  const out: DetectedRaceEvent[] = [];
  for (const b of fresh) {
    const legs = legsOf(b.legs, race, fieldIds);
    if (!onThisRace(legs)) continue;
    const odds = finite(b.record.place_odds);
    const data: BigBetData = {
      race,
      product: str(b.record.title) ?? '',
      stake: finite(b.record.stake) as number,
      odds: odds !== null && odds > 0 ? odds : null,
      placedAt: new Date(b.at).toISOString(),
      selections: legs.filter((l) => l.thisRace).flatMap((l) => l.selections),
      legs,
      biggest: b.key === biggest,
    };
    out.push({ type: 'market.big_bet', data });
  }
  return out;
}
