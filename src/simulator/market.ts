/**
 * The fixed-odds market of a race: scratchings and price moves, drawn from the race's seeded stream.
 *
 * A price is 1 / chance on the ladder; the book is the sum of the chances shown. Measured in the
 * real payload (Awapuni R1): the book is 1.29 at the open and 1.21 at the jump; every runner moved 2 or 3
 * times (2.6 on average) after the open, all from 29 min before the advertised start until the race closed
 * (the last move 51 s before it), about half of them in the last 5 min; a move changes the price by 26 %
 * on average (|log ratio|). Moves stop when the race closes, however late that is.
 * A move is random but pulled, in proportion, toward the book targeted at that time; a scratching reframes the market:
 * the others are re-priced at once to the book.
 */
import { ladder, MINUTE, placeOf, placesPaidBy } from './changes.js';
import type { Lifecycle } from './lifecycle.js';
import type { RaceStatic } from './model.js';
import { type Rng, rngFor } from './rng.js';

export const OPEN_BOOK = 1.29;
const CLOSE_BOOK = 1.21;
/** Late moves start this long before the advertised start. */
export const LATE_WINDOW = 30 * MINUTE;
/** Times of late moves: close - window x u^k; k = 3 puts over half the moves in the last 5 min. */
const BUNCHING = 3;
/** Spread of a move's log change of the runner's chance. */
const MOVE_SIGMA = 0.42;
/** How far (as a power of the ratio) a move goes toward the price that would restore the book. */
const BOOK_PULL = 0.8;
/** Late moves drawn per runner: 1-4, 3 on average (a move that lands on the same ladder price is none). */
const MOVE_COUNTS = [1, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4];

/**
 * Emergencies wait for a start until this long before the advertised start (assumed: the morning
 * scratching deadline; every early scratching, 3-40 h out, comes before it, every late one after).
 */
export const EMERGENCY_DEADLINE = 150 * MINUTE;

export interface MarketDraft {
  at: number;
  type: 'odds' | 'scratching' | 'promotion';
  detail: Record<string, unknown>;
}

/** The book targeted at `t`: the opening book until the late window, tightening to the closing book 5 min out. */
function bookAt(t: number, life: Lifecycle): number {
  const from = life.start - LATE_WINDOW;
  if (t <= from) return OPEN_BOOK;
  const x = Math.min(1, (t - from) / (LATE_WINDOW - 5 * MINUTE));
  return OPEN_BOOK + (CLOSE_BOOK - OPEN_BOOK) * x;
}

interface StoryEvent {
  at: number;
  kind: 'move' | 'scratch' | 'deadline';
  i: number;
  late?: boolean;
}

export function marketStory(seed: number, race: RaceStatic, life: Lifecycle): MarketDraft[] {
  const rng = rngFor(seed, 'market', race.id);
  const end = Math.min(life.closeAt, life.abandonAt ?? Number.POSITIVE_INFINITY);
  const { events, waiting } = storyEvents(rng, race, life, end);
  const market = createMarket(race, life, waiting);
  for (const e of events) {
    if (e.at >= end) continue;
    if (e.kind === 'deadline') {
      // Emergencies without a start by the deadline are scratched (early: no deduction).
      const left = [...waiting];
      for (const i of left) market.scratch(e.at, i, false);
      if (left.length > 0) market.reframe(e.at, left.length);
      continue;
    }
    if (market.out.has(e.i)) continue;
    if (e.kind === 'scratch') {
      market.scratch(e.at, e.i, e.late === true);
      market.reframe(e.at, 1);
      continue;
    }
    market.move(e.at, e.i, rng.normal());
  }
  return market.drafts;
}

/**
 * What happens to the market, in time order, drawn from the race's stream (the order of the draws is the
 * story: changing it changes every seed's day). `waiting`: the emergencies waiting for a start.
 */
function storyEvents(
  rng: Rng,
  race: RaceStatic,
  life: Lifecycle,
  end: number,
): { events: StoryEvent[]; waiting: number[] } {
  const S = race.advertisedStart;
  const events: StoryEvent[] = [];
  // Scratchings: about half the races have one or two, 30 % of them late (5-60 min out).
  const count = rng.chance(0.5) ? 0 : rng.chance(0.7) ? 1 : 2;
  const scratched = new Set<number>();
  for (let k = 0; k < count && race.runners.length > 4; k++) {
    const i = rng.int(0, race.runners.length - 1);
    const late = rng.chance(0.3);
    const at = Math.round(late ? S - rng.int(5, 60) * MINUTE : S - rng.int(3 * 60, 40 * 60) * MINUTE);
    if (scratched.has(i) || at >= end || at <= race.marketOpen) continue;
    scratched.add(i);
    events.push({ at, kind: 'scratch', i, late });
  }
  // Late moves, bunched toward the close.
  const window = end - (life.start - LATE_WINDOW);
  race.runners.forEach((_, i) => {
    const n = rng.pick(MOVE_COUNTS);
    for (let k = 0; k < n && Number.isFinite(window); k++) {
      events.push({ at: Math.round(end - 1 - window * rng.next() ** BUNCHING), kind: 'move', i });
    }
  });
  // The emergencies' deadline (no draw, so the stream's other draws stay as they were).
  const waiting = race.runners.flatMap((r, i) => (r.emergency === null ? [] : [i]));
  if (waiting.length > 0) events.push({ at: S - EMERGENCY_DEADLINE, kind: 'deadline', i: -1 });
  events.sort((a, b) => a.at - b.at || a.i - b.i);
  return { events, waiting };
}

/**
 * The market as shown: each runner's implied chance (1 / price; the book is their sum) and price, the
 * runners out, and the drafts each change makes. `waiting` (emergencies) is consumed as they get a start.
 */
function createMarket(race: RaceStatic, life: Lifecycle, waiting: number[]) {
  const S = race.advertisedStart;
  const implied = race.runners.map((r) => 1 / r.openWin);
  const shown = race.runners.map((r) => r.openWin);
  const out = new Set<number>();
  const drafts: MarketDraft[] = [];
  const others = (i: number) => implied.reduce((a, x, j) => (j === i || out.has(j) ? a : a + x), 0);
  // `placesChanged`: a scratching changed the places paid, so every place price moves even if the win does not.
  const show = (at: number, j: number, chance: number, placesChanged = false) => {
    const price = ladder(1 / chance);
    implied[j] = 1 / price;
    if (price === shown[j] && !placesChanged) return;
    shown[j] = price;
    const r = race.runners[j]!;
    const fixedPlace = placeOf(price, placesPaidBy(race.runners.length - out.size));
    drafts.push({
      at,
      type: 'odds',
      detail: { entrantId: r.entrantId, runnerNumber: r.number, fixedWin: price, fixedPlace },
    });
  };
  const scratch = (at: number, i: number, late: boolean) => {
    const r = race.runners[i]!;
    out.add(i);
    // Bets were struck when the scratched runner still ran.
    const deduction = deductionOf(
      late,
      1 / (implied[i] as number),
      placesPaidBy(race.runners.length - out.size + 1),
    );
    drafts.push({
      at,
      type: 'scratching',
      detail: { entrantId: r.entrantId, runnerNumber: r.number, late, ...deduction },
    });
    // A runner of the field scratched before the deadline lets the first emergency waiting in.
    const k = waiting.indexOf(i);
    if (k >= 0) waiting.splice(k, 1);
    else if (waiting.length > 0 && at <= S - EMERGENCY_DEADLINE) {
      const promoted = race.runners[waiting.shift() as number]!;
      drafts.push({
        at,
        type: 'promotion',
        detail: {
          entrantId: promoted.entrantId,
          runnerNumber: promoted.number,
          position: promoted.emergency,
        },
      });
    }
  };
  /** The market reframed at once after scratchings: every runner left is re-priced to the book. */
  const reframe = (at: number, scratched: number) => {
    const starters = race.runners.length - out.size;
    const placesChanged = placesPaidBy(starters) !== placesPaidBy(starters + scratched);
    const book = bookAt(at, life);
    const left = others(-1);
    for (let j = 0; j < implied.length; j++)
      if (!out.has(j)) show(at, j, ((implied[j] as number) * book) / left, placesChanged);
  };
  /** A random move (`normal`: a standard normal draw), pulled back toward the book the others leave room for. */
  const move = (at: number, i: number, normal: number) => {
    // Mean-preserving: a log-normal step without the -sigma^2/2 term would inflate the book on every move.
    const moved = (implied[i] as number) * Math.exp(normal * MOVE_SIGMA - MOVE_SIGMA ** 2 / 2);
    const room = bookAt(at, life) - others(i);
    // In proportion: a long shot's price cannot carry the whole book's error (at most x1.6 or /1.6).
    const target = moved * Math.min(1.6, Math.max(1 / 1.6, room / moved)) ** BOOK_PULL;
    show(at, i, Math.min(0.95, Math.max(0.002, target)));
  };
  return { out, drafts, scratch, reframe, move };
}

/**
 * Fixed-odds deductions a late scratching causes (cents in the dollar, from the scratched runner's price:
 * 100 / price, at most 75), as bookmakers publish them. Early scratchings carry none.
 */
export function deductionOf(
  late: boolean,
  win: number,
  placesPaid: number,
): { deduction?: { win: number; place: number } } {
  if (!late) return {};
  const place = placeOf(win, placesPaid);
  return {
    deduction: {
      win: Math.min(75, Math.round(100 / win)),
      place: Math.min(75, Math.round(100 / place / placesPaid)),
    },
  };
}
