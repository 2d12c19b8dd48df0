/**
 * Which request to make next: a pure function of the known races, the clock, the subscriptions and what is
 * already in flight. The poller asks it whenever the limiter has a slot.
 *
 * Rule: spend each request where it ends the most expected waiting, weighed by value. A race whose changes
 * of value arrive at rate w (poll-policy.ts) and was last fetched a seconds ago holds on average w x a^2 / 2
 * of value-seconds of changes nobody has seen; fetching it ends them. Taking the race with the largest such
 * score (among those whose minimum interval has passed) polls each race when its score reaches a common
 * level, which under a saturated budget gives intervals proportional to 1 / sqrt(w): the allocation that
 * minimises the mean value-weighted detection latency for Poisson changes (the square-root rule of the
 * revisit-policy literature; Cho & Garcia-Molina, ACM TODS 2003). A race twice as busy is fetched about 1.4x
 * as often, not 2x, so quiet races still get their turn.
 *
 * The score ranks only the near-jump and post-jump slices (poll-policy.ts); the budget's other slices have
 * rules of their own (issue 26: spread by one global rule, 22 % of the budget went to ~1,400 races hours
 * out and near-jump odds were level with a naive scraper). In order: discovery first when it is due (a day
 * listed before waits up to `discoveryLatestAt` while a race near its jump has no document: see below); then
 * a race discovery marked dirty (urgent: how a status change after the jump is fetched); then, on an
 * early-scratching turn, a race 1-3 h out (past `earlyScratchingMaxAgeMs`, the most overdue first, or never
 * fetched; on a paced turn the one nearest that); then, on a far turn (FAR_SCRATCHING_SHARE), the race more
 * than 3 h out that waits longest (never fetched first); then, on a late-scratching turn, the Open race within
 * the hour longest past `lateScratchingMaxAgeMs` (late scratchings; never fetched: due at once; on a paced
 * turn the one nearest that); then a subscribed race not fetched for SUBSCRIBED_MAX_INTERVAL_MS (someone is
 * watching it); then the score. The two deadline slices take their turns at an even pace (`paced`: one of N
 * races every maxAge / (N + 1)), and a share of the race picks (`earlyScratchingShare`, LATE_TURN_SHARE) when a race
 * is past its deadline (a clump of them after a start); a share turn with nothing past due goes to the
 * score: the races at their jump get what the scratching slices do not need.
 *
 * Around a peak of races near their jump (peak.ts: PEAK_RACES or more within 10 minutes of their advertised
 * start, forecast from the timetable) the 1-3 h band and the far share step aside: in a peak the band takes
 * only a race at its latest age (its maximum age and BAND_PEAK_GRACE_MS, within the 20-minute goal), on any
 * pick, and nothing on its paced or share turns, and the far share takes no turn; before a peak, from
 * BAND_AHEAD_LEAD_MS ahead of it and while at most TROUGH_RACES races are near their jump, a race that would
 * fall due in it is due once half its maximum age has passed (work ahead: the troughs pay for the peak), and
 * the band takes the late-scratching share turns the races within the hour leave as well as its own. A race
 * at its latest age goes on any pick out of a peak too: the races fetched together ahead of a peak fall due
 * together after it. In a peak the near-jump slice's requests per race were the tail of the odds latency
 * (issue 26).
 *
 * A subscribed race with no document yet (never fetched by this poller: after a start, a takeover or a
 * wiped store, that is every race) is overdue like any other and ranked by its score, so the races at the
 * jump are refilled first; ranked by start time instead, a new leader with 189 subscribed races spent
 * minutes on yesterday's Final races while races at the jump got nothing (issue 27). The races whose score
 * never wins (a Final race wanted only for its document) are refilled on refill turns (`isRefillTurn`): one
 * race pick in REFILL_EVERY goes to the one that has needed its document longest, a bounded share of the
 * budget. Before all of that but discovery, a race near its jump with no document (`isNearJumpUnknown`;
 * `firstBefore` orders them) goes first and takes the refill and share turns too: ranked by score alone it waited
 * behind those turns, the 17 such races of 200 subscribed got their first fetch within 19 s at 100
 * requests a minute (measured) rather than the ~11 s of taking every race pick. It also goes before a due
 * listing of a day listed before, until `discoveryLatestAt` (the poller gives one more live interval): after
 * a takeover the listings of a live day every 3 s took a third of the nemesis's 60 requests a minute, and
 * with two hand-overs in a wipe's first 33 requests, 12 of them listings, three of its 14 races near their
 * jump waited past the 30th (seed 11027028). A day never listed, or whose listing failed, is not deferred:
 * the races it holds are unknown until it is listed. The budget itself is the limiter's: the scheduler only
 * says what, never when.
 */

import { FINISHED_STATUSES, type RaceWatch } from '../track/race-watch.js';
import { BAND_PEAK_GRACE_MS, NEAR_JUMP_MS, PeakForecast, TROUGH_RACES } from './peak.js';
import {
  DEFAULT_SETTINGS,
  dividendsDue,
  FAR_SCRATCHING_SHARE,
  type FreshnessSettings,
  type PollPolicy,
  pollPolicy,
  SUBSCRIBED_MAX_INTERVAL_MS,
  sliceOf,
} from './poll-policy.js';

export type Pick =
  | { kind: 'discovery' }
  /**
   * `urgent`: dirty, or a refill (a subscriber waits for its document); it should overtake everything queued.
   * `deadline`: an Interim race fetched for its dividends on their deadline (`dividendsDue`), before every turn.
   */
  | { kind: 'race'; raceId: string; weight: number; urgent: boolean; deadline?: boolean }
  /** Nothing is due; ask again at `until` (epoch ms) or when something changes. */
  | { kind: 'idle'; until: number };

export interface SchedulerInput {
  races: Iterable<RaceWatch>;
  now: number;
  /** Races being fetched right now: never picked twice. */
  inFlight: ReadonlySet<string>;
  subscribers: ReadonlyMap<string, number>;
  /** When the next discovery request is due (epoch ms); discovery is never run twice at once. */
  discoveryDueAt: number;
  /**
   * Until when a due listing of a day listed before may wait for the races near their jump with no document
   * (`isNearJumpUnknown`); from then on it goes first again. @default discoveryDueAt (it never waits)
   */
  discoveryLatestAt?: number;
  discoveryInFlight: boolean;
  /** Race picks made so far: which are refill and early-scratching turns (isRefillTurn, isShareTurn). */
  racePicks?: number;
}

/** One race pick in REFILL_EVERY is a refill turn: at most this share of the races' budget refills documents. */
export const REFILL_EVERY = 5;
/** Whether the race pick after `racePicks` earlier ones is a refill turn. */
export const isRefillTurn = (racePicks: number) => racePicks % REFILL_EVERY === REFILL_EVERY - 1;
/** Whether the race pick after `racePicks` earlier ones falls to a slice holding `share` of them (0-1). */
export const isShareTurn = (racePicks: number, share: number) =>
  Math.floor((racePicks + 1) * share) > Math.floor(racePicks * share);

/**
 * Whether a race pick uses up its turn (counts toward `racePicks`). A dirty race's fetch does not, nor a
 * dividends deadline's: they go before every turn, and counted they took the early-scratching turns they fell
 * on, so that slice spent less than its share whenever statuses changed often (measured: a race 1-3 h out
 * waited 26 minutes).
 */
export const usesTurn = (pick: Pick, racePicks: number): boolean =>
  pick.kind === 'race' && ((!pick.urgent && !pick.deadline) || isRefillTurn(racePicks));

/**
 * Whether a race is near its jump (within NEAR_JUMP_MS of its advertised start, or past it and not over)
 * with no document yet: after a start, a takeover or a wiped store, the race whose prices and results
 * people are waiting for right now.
 */
export const isNearJumpUnknown = (race: RaceWatch, now: number): boolean =>
  race.lastFetchAt === undefined &&
  race.startTime - now <= NEAR_JUMP_MS &&
  !FINISHED_STATUSES.has(race.status);

/** A race never fetched is scored as if fetched this long before discovery listed it. */
const NEVER_FETCHED_AGE_MS = 60_000;
/** Added to an overdue race's score: above any routine score, below urgent (infinite). */
const OVERDUE_SCORE = 1e15;
const THREE_HOURS_MS = 3 * 3_600_000;
/** Rank of a race 1-3 h out at its latest age in a peak: above every other rank of the band. */
const BAND_LATEST_RANK = 3e13;
/** Before a peak, the band visits the races that would fall due in it from this long before it begins. */
const BAND_AHEAD_LEAD_MS = 8 * 60_000;
/**
 * Late-scratching deadlines overtake the score on at most this share of race picks: the races within the
 * hour listed together (all of them after a start) fall due together, and taking them all at once left the
 * races at their jump waiting past 40 s (measured); at ~9 a minute of ~90 they need about one turn in ten.
 */
const LATE_TURN_SHARE = 0.25;

interface Candidate {
  race: RaceWatch;
  policy: PollPolicy;
  /** When it was last fetched, or as if (never fetched: NEVER_FETCHED_AGE_MS before it was listed). */
  last: number;
}

/**
 * Races found with nothing more to poll (`pollPolicy` null: over, confirmed and settled), by the instant they
 * were found so. A RaceWatch is never changed in place (the poller and discovery replace it), and for a given
 * one the answer stays null as the clock moves on, so each pick skips them without working out their policy
 * again: over a racing day most of the ~1,500 listed races are over, and at every pick (several a second) their
 * policies were most of the scheduler's time (test/http/race-series-day.test.ts, profiled). A memo of a pure
 * answer, keyed weakly: a replaced or dropped race leaves it.
 */
const overSince = new WeakMap<RaceWatch, number>();

export function pickNext(input: SchedulerInput, settings: FreshnessSettings = DEFAULT_SETTINGS): Pick {
  const { now } = input;
  const discoveryDue = !input.discoveryInFlight && now >= input.discoveryDueAt;
  if (discoveryDue && now >= (input.discoveryLatestAt ?? input.discoveryDueAt)) return { kind: 'discovery' };
  const turn = input.racePicks ?? 0;
  const refillTurn = input.racePicks !== undefined && isRefillTurn(turn);
  const earlyTurn = isShareTurn(turn, settings.earlyScratchingShare);
  const farTurn = isFarTurn(turn, settings.earlyScratchingShare);
  const lateTurn = isShareTurn(turn, LATE_TURN_SHARE);

  let best: { c: Candidate; score: number; urgent: boolean } | undefined;
  let first: Candidate | undefined;
  let refill: Candidate | undefined;
  const scratch: ScratchPicks = {};
  let dividends: Candidate | undefined;
  let nextDue = input.discoveryInFlight ? Number.POSITIVE_INFINITY : input.discoveryDueAt;
  const latePace: Pace = { races: 0, lastAt: Number.NEGATIVE_INFINITY };
  const bandPace: Pace = { races: 0, lastAt: Number.NEGATIVE_INFINITY };
  const forecast = new PeakForecast(now);
  const band: Candidate[] = [];
  for (const race of input.races) {
    // An over race is past its jump: no paced slice counts it.
    if ((overSince.get(race) ?? Number.POSITIVE_INFINITY) <= now) continue;
    const inFlight = input.inFlight.has(race.raceId);
    countPace(race, now, inFlight, latePace, bandPace);
    forecast.add(race);
    if (inFlight) continue;
    const subscribers = input.subscribers.get(race.raceId) ?? 0;
    const policy = pollPolicy(race, now, subscribers);
    if (!policy) {
      overSince.set(race, now);
      continue;
    }
    const c = { race, policy, last: race.lastFetchAt ?? race.discoveredAt - NEVER_FETCHED_AGE_MS };
    // Urgent: discovery saw a change the race's document does not show yet.
    const urgent = race.dirty && race.failures === 0;
    // Oldest-needed first: listed earliest (all at once after a takeover: then the earliest start).
    if (
      refillTurn &&
      subscribers > 0 &&
      race.lastFetchAt === undefined &&
      (!refill || neededSooner(c, refill))
    )
      refill = c;
    if (isNearJumpUnknown(race, now) && (!first || firstBefore(race, first.race))) first = c;
    // A race never fetched is due at once: its first fetch is the baseline every later change is seen against.
    // So is one on its dividends deadline, which alone looks for them in their window (its score is nil there);
    // a race whose fetches fail keeps its back-off (the score's, poll-policy.ts).
    const deadline = race.failures === 0 && dividendsDue(race, now);
    const dueAt = urgent || deadline || race.lastFetchAt === undefined ? now : c.last + policy.minIntervalMs;
    if (dueAt > now) {
      nextDue = Math.min(nextDue, dueAt);
      continue;
    }
    // The dividends deadline: the race whose dividends waited longest for a look first.
    if (deadline && (!dividends || c.last < dividends.last)) dividends = c;
    considerScratching(scratch, c, now, settings, farTurn, band);
    const score = urgent ? Number.POSITIVE_INFINITY : scoreOf(c, now, subscribers);
    // Ties (several dirty races, say) go to the race that jumps first.
    if (!best || score > best.score || (score === best.score && race.startTime < best.c.race.startTime)) {
      best = { c, score, urgent };
    }
  }
  const { inPeak, ahead } = rankBand(scratch, band, now, settings, forecast);
  if (first) return race(first, false);
  if (discoveryDue) return { kind: 'discovery' };
  if (refill) return race(refill, true);
  if (best?.urgent) return race(best.c, true);
  if (dividends) return race(dividends, false, true);
  // A slice's most overdue race goes on its share turn when past due, or on its paced turn, which waits
  // for a subscribed race overdue as watched; working ahead, the band takes the late turns left unused.
  const watchedDue = best !== undefined && best.score >= OVERDUE_SCORE;
  const { early, far, late } = scratch;
  // A race 1-3 h out at its latest age goes on any pick (in a peak the band takes only those); no far turn.
  if (early && early.rank >= BAND_LATEST_RANK) return race(early.c, false);
  const bandTurn = !inPeak && (earlyTurn || (ahead && lateTurn && !(late && late.rank >= 0)));
  const bandPaced = !inPeak && !watchedDue && paced(bandPace, now, settings.earlyScratchingMaxAgeMs);
  if (takes(early, bandTurn, bandPaced)) return race(early.c, false);
  if (far && !inPeak) return race(far.c, false);
  if (takes(late, lateTurn, !watchedDue && paced(latePace, now, settings.lateScratchingMaxAgeMs)))
    return race(late.c, false);
  if (best) return race(best.c, false);
  return { kind: 'idle', until: nextDue };
}

/** Whether a scratching slice takes its race: on its share turn when past its deadline, or on its paced turn. */
const takes = (pick: Ranked | undefined, shareTurn: boolean, pacedTurn: boolean): pick is Ranked =>
  pick !== undefined && ((shareTurn && pick.rank >= 0) || pacedTurn);

const race = (c: Candidate, urgent: boolean, deadline?: true): Pick => ({
  kind: 'race',
  raceId: c.race.raceId,
  weight: c.policy.weight,
  urgent,
  ...(deadline ? { deadline } : {}),
});

/**
 * Order among the races near their jump this poller has not fetched: the one no term fetched lately, then the
 * one a previous term fetched longest ago (`handedOverAt`, handed-over.ts: with hand-overs every few seconds
 * each term otherwise fetched the same first races again; counted even when a wipe lost the document since:
 * after a kill and a wipe 9.5 s apart, 22 of the kill's first 34 requests went to its 11 races near their
 * jump and the last of them waited until the 34th, seed 23655512), then the earliest advertised start.
 */
const firstBefore = (a: RaceWatch, b: RaceWatch) => {
  const dataA = a.handedOverAt ?? Number.NEGATIVE_INFINITY;
  const dataB = b.handedOverAt ?? Number.NEGATIVE_INFINITY;
  return dataA < dataB || (dataA === dataB && a.startTime < b.startTime);
};

const neededSooner = (a: Candidate, b: Candidate) =>
  a.race.discoveredAt < b.race.discoveredAt ||
  (a.race.discoveredAt === b.race.discoveredAt && a.race.startTime < b.race.startTime);

/** A far turn that falls on an early-scratching turn moves to the next pick, so each slice keeps its share. */
export const isFarTurn = (turn: number, earlyShare: number): boolean =>
  (isShareTurn(turn, FAR_SCRATCHING_SHARE) && !isShareTurn(turn, earlyShare)) ||
  (turn > 0 && isShareTurn(turn - 1, FAR_SCRATCHING_SHARE) && isShareTurn(turn - 1, earlyShare));

interface Ranked {
  c: Candidate;
  rank: number;
}

/** Each scratching slice's candidate: the race it would take on its turn (larger rank first). */
interface ScratchPicks {
  early?: Ranked;
  far?: Ranked;
  late?: Ranked;
}

function considerScratching(
  picks: ScratchPicks,
  c: Candidate,
  now: number,
  settings: FreshnessSettings,
  farTurn: boolean,
  band: Candidate[],
): void {
  const better = (held: Ranked | undefined, rank: number) => !held || rank > held.rank;
  if (c.policy.slice === 'lateScratchings') {
    const rank = lateOverdue(c, now, settings);
    if (better(picks.late, rank)) picks.late = { c, rank };
  }
  if (c.policy.slice !== 'earlyScratchings') return;
  if (inBand(c.race, now)) band.push(c);
  else if (farTurn) {
    const rank = farRank(c, now);
    if (better(picks.far, rank)) picks.far = { c, rank };
  }
}

/**
 * Ranks the races 1-3 h out (`bandRank`) into `picks.early`; answers whether a peak is on (peak.ts) and whether
 * the band works ahead of one (in a trough, within BAND_AHEAD_LEAD_MS of it).
 */
function rankBand(
  picks: ScratchPicks,
  band: readonly Candidate[],
  now: number,
  settings: FreshnessSettings,
  forecast: PeakForecast,
): { inPeak: boolean; ahead: boolean } {
  const peakAt = forecast.nextPeakAt();
  // Work ahead only in a trough: moved from one busy stretch to another, the requests cost as much there.
  const aheadOf = forecast.loadNow() <= TROUGH_RACES ? peakAt : Number.POSITIVE_INFINITY;
  for (const c of band) {
    const rank = bandRank(c, now, settings, peakAt, aheadOf);
    if (!picks.early || rank > picks.early.rank) picks.early = { c, rank };
  }
  return { inPeak: peakAt <= now, ahead: now >= aheadOf - BAND_AHEAD_LEAD_MS };
}

/** An early-scratching race within 3 h of its start: the paced 1-3 h band, not the far share. */
const inBand = (race: RaceWatch, now: number) => race.startTime - now <= THREE_HOURS_MS;

/** The races of a paced slice (within the hour; 1-3 h out) and when the last of them was fetched. */
interface Pace {
  races: number;
  lastAt: number;
}

/** Counts a race (in flight or not, due or not) toward the pace of its slice, if paced. */
function countPace(race: RaceWatch, now: number, inFlight: boolean, late: Pace, band: Pace): void {
  const slice = sliceOf(race, now);
  const pace =
    slice === 'lateScratchings' ? late : slice === 'earlyScratchings' && inBand(race, now) ? band : undefined;
  if (!pace) return;
  pace.races++;
  pace.lastAt = Math.max(pace.lastAt, inFlight ? now : (race.lastFetchAt ?? Number.NEGATIVE_INFINITY));
}

/**
 * Whether a paced slice's turn has come: one of its N races every maxAge / (N + 1), timed from the last of them
 * fetched, so each is fetched a little within maxAge at an even pace (a turn's slot comes up to a request
 * late: at maxAge / N the round slipped past the deadline and the share turns fetched races twice). Taken
 * only when due at their deadlines (share turns), those races fell due in clumps (listed together; entering
 * the hour together) and each clump
 * held back the races at their jump for seconds: near-jump intervals varied by a quarter (coefficient of
 * variation 0.22-0.28 within a minute of the start; seed 7 of the freshness bench), and every move waits out
 * the interval it falls in, so the longest intervals made the 95th percentile (issue 26).
 */
const paced = (pace: Pace, now: number, maxAgeMs: number) =>
  pace.races > 0 && now - pace.lastAt >= maxAgeMs / (pace.races + 1);

/**
 * Whether and how urgently a race 1-3 h out is due on an early-scratching turn (negative: not due). Past its
 * maximum age, the most overdue first; then a race never fetched (its first fetch is the baseline its
 * scratchings are seen against; taken on a turn nothing is overdue for, it spreads the band's next round:
 * left to its deadline, races entering together fell due with the round, 20.1 minutes). A race's age in the
 * band counts from its last fetch or from when it entered the band (3 h before its start), whichever is later:
 * ranked by age alone, a race never fetched counted as listed-ago (an hour and more) and every one entering
 * the band went before a race fetched 19 minutes ago, which then waited 26-30 minutes (seeds 7 and 8 of the
 * freshness bench, issue 26). A race fetched within its maximum age is not due (negative: how long until it
 * is): a share turn goes to the score, a paced turn takes the race nearest its deadline. Before a peak
 * (`aheadOf`: the next peak's start, peak.ts, while in a trough) a race that would fall due in it ranks as due
 * from BAND_AHEAD_LEAD_MS before it, once half its maximum age has passed; in a peak (`peakAt` passed) only a
 * race at its latest age ranks as due (BAND_LATEST_RANK and up).
 */
function bandRank(
  c: Candidate,
  now: number,
  settings: FreshnessSettings,
  peakAt: number,
  aheadOf: number,
): number {
  const enteredBand = c.race.startTime - THREE_HOURS_MS;
  const since = Math.max(c.race.lastFetchAt ?? enteredBand, enteredBand);
  const age = now - since;
  const maxAge = settings.earlyScratchingMaxAgeMs;
  // At its latest age (within the 20-minute goal) a race goes on any pick. A race never fetched counts from
  // when it was listed: after a start or a takeover every race in the band is one, and counted from when it
  // entered the band they all took every pick at once, before the races people watch (the nemesis's two
  // subscribed races went unfetched for minutes after each takeover, so no webhook was sent).
  const known = Math.max(c.race.lastFetchAt ?? c.race.discoveredAt, enteredBand);
  const late = now - known - maxAge - BAND_PEAK_GRACE_MS;
  if (late >= 0) return BAND_LATEST_RANK + late;
  // In a peak the band takes nothing else.
  if (peakAt <= now) return late;
  const overdue = age - maxAge;
  if (overdue >= 0) return 2e13 + overdue;
  // Work ahead: a race that would fall due in the coming peak goes before it, oldest first.
  if (since + maxAge >= aheadOf && now >= aheadOf - BAND_AHEAD_LEAD_MS && age >= maxAge / 2)
    return 2e13 + overdue;
  return c.race.lastFetchAt === undefined ? 1e13 + (now - c.last) : overdue;
}

/** Order among the races more than 3 h out on a far turn: never fetched first, then the longest unvisited. */
const farRank = (c: Candidate, now: number): number =>
  (c.race.lastFetchAt === undefined ? 1e13 : 0) + (now - c.last);

/**
 * How far past its late-scratching deadline a race within the hour is (ms; negative: not yet). A race never
 * fetched is due from when it was listed: its first fetch is the baseline its scratchings are seen against.
 */
function lateOverdue(c: Candidate, now: number, settings: FreshnessSettings): number {
  if (c.race.lastFetchAt === undefined) return now - c.race.discoveredAt;
  return now - c.last - settings.lateScratchingMaxAgeMs;
}

/** The race's score: overdue as watched above the value of its unseen changes. */
function scoreOf(c: Candidate, now: number, subscribers: number): number {
  const { policy } = c;
  const ageMs = now - c.last;
  // A race with nothing more to see (weight 0) is never overdue as watched: it would go before every race
  // at the jump (the nemesis caught Final races fetched first after a wipe); refill turns give it its document.
  const watched = subscribers > 0 && policy.weight > 0 && ageMs >= SUBSCRIBED_MAX_INTERVAL_MS;
  const ageS = ageMs / 1000;
  // Weight 0 (no slice rule due, or only a baseline): below every race with something to see, oldest first.
  const value = policy.weight > 0 ? (policy.weight * ageS * ageS) / 2 : -1 / ageS;
  return (watched ? OVERDUE_SCORE : 0) + value;
}
