/**
 * The public event contract: every event type racewire emits and the `data` each one carries. WebSocket
 * messages and webhook bodies wrap these in the envelope of `envelope.ts`. Payloads are self-contained
 * (race and runner context included), camelCase, and never hold a partner-only field
 * (`restricted-fields.ts`). Documented with examples in docs/events.md.
 */

/**
 * The market events (docs/events.md#market-events): many on a busy day, like `odds.changed`, so feeds keep
 * them apart from the rest.
 */
export const MARKET_EVENT_TYPES = [
  'odds.plunge',
  'odds.drift',
  'race.mover_changed',
  'runner.deduction',
  'market.big_bet',
  'market.money_flow',
  'pool.total',
] as const;

export const RACE_EVENT_TYPES = [
  'race.status_changed',
  'race.abandoned',
  'race.jumped',
  'race.start_time_changed',
  'race.track_condition_changed',
  'race.protest',
  'race.favourite_changed',
  'race.results',
  'race.dividends',
  'runner.scratched',
  'runner.reinstated',
  'runner.added',
  'runner.removed',
  'runner.jockey_changed',
  'odds.changed',
  'odds.pools_changed',
  ...MARKET_EVENT_TYPES,
] as const;

export const MEETING_EVENT_TYPES = ['meeting.added', 'meeting.race_added', 'meeting.race_removed'] as const;

export const EVENT_TYPES = [...RACE_EVENT_TYPES, ...MEETING_EVENT_TYPES] as const;

export type RaceEventType = (typeof RACE_EVENT_TYPES)[number];
export type MeetingEventType = (typeof MEETING_EVENT_TYPES)[number];
export type EventType = (typeof EVENT_TYPES)[number];

export const isEventType = (value: string): value is EventType =>
  (EVENT_TYPES as readonly string[]).includes(value);

/**
 * Whether `type` is one of `patterns`: an exact type, `*` (every type) or a family such as `market.*`
 * (every type that starts with `market.`). Webhook endpoints and the firehose filter match this way.
 */
export const matchesEventType = (patterns: readonly string[], type: string): boolean =>
  patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));

/** Which race an event is about, so a message makes sense on its own. Times are ISO 8601 UTC. */
export interface RaceContext {
  raceId: string;
  meetingId: string;
  meetingName: string;
  raceNumber: number;
  raceName: string;
  /** Racing code `T`, `H` or `G` (other upstream spellings mapped to these); absent when upstream omits it. */
  category?: string;
  country?: string;
  advertisedStart: string;
  status: string;
}

/** Which runner an event is about. */
export interface RunnerRef {
  entrantId: string;
  runnerNumber: number;
  name: string;
  barrier: number;
}

export type FixedMarket = 'fixed_win' | 'fixed_place';
/** The tote's (pari-mutuel) prices: they move on every tote tick, so they come batched (`odds.pools_changed`). */
export type PoolMarket = 'pool_win' | 'pool_place';
export type OddsMarket = FixedMarket | PoolMarket;

/**
 * `firming`: the price shortened (more fancied); `drifting`: it lengthened. `opened` / `withdrawn`: a price
 * appeared or disappeared (no percentage then).
 */
export type OddsDirection = 'firming' | 'drifting' | 'opened' | 'withdrawn';

/** One price of one runner that moved, opened or was withdrawn. */
export interface PriceChange<M extends OddsMarket = OddsMarket> {
  runner: RunnerRef;
  market: M;
  from: number | null;
  to: number | null;
  /** (to - from) / from * 100, rounded to 0.1; null when either side is missing. */
  changePct: number | null;
  direction: OddsDirection;
  /** |changePct| at or above the significant-move threshold (default 10 %). */
  significant: boolean;
}

/** A fixed-odds price of one runner changed (one event per runner and market). */
export interface OddsChangedData extends PriceChange<FixedMarket> {
  race: RaceContext;
}

/**
 * The tote prices that changed in one payload of a race, all in one event (protocol 3): by runner number,
 * then `pool_win` before `pool_place`; opened and withdrawn pool prices included. Never empty.
 */
export interface PoolsChangedData {
  race: RaceContext;
  changes: PriceChange<PoolMarket>[];
}

export interface RunnerScratchedData {
  race: RaceContext;
  runner: RunnerRef;
  /** When it was scratched: upstream's scratch time, else when racewire first saw it; null if neither. */
  scratchTime: string | null;
  scratchTimeSource: 'upstream' | 'observed' | 'unknown';
  /** Scratched within the late window (default 12 h) before the advertised start, or after it. */
  late: boolean;
}

export interface RunnerRefData {
  race: RaceContext;
  runner: RunnerRef;
}

export interface RunnerJockeyChangedData {
  race: RaceContext;
  runner: RunnerRef;
  from: string | null;
  to: string | null;
}

export interface StatusChangedData {
  race: RaceContext;
  /** Any status string; known ones are Open/Upcoming, Closed, Interim, Final, Abandoned. */
  from: string;
  to: string;
}

export interface AbandonedData {
  race: RaceContext;
  /** The status before abandonment. */
  from: string;
}

export interface JumpedData {
  race: RaceContext;
  /** Actual start time when upstream gives one. */
  actualStart: string | null;
  /** actualStart - advertisedStart in seconds, when both are known. */
  delaySeconds: number | null;
}

export interface StartTimeChangedData {
  race: RaceContext;
  from: string;
  to: string;
  /** Positive when the race was put back. */
  deltaSeconds: number;
}

export interface TrackConditionChangedData {
  race: RaceContext;
  from: string | null;
  to: string | null;
}

export interface ProtestData {
  race: RaceContext;
  /**
   * From what the payload says: `lodged` (flag set, no decision in the reason), `upheld` (the reason says
   * upheld, or a disqualification), `dismissed`, or `resolved` (the flag cleared, confirmed).
   */
  status: 'lodged' | 'upheld' | 'dismissed' | 'resolved';
  reason: string | null;
}

export interface FavouriteChangedData {
  race: RaceContext;
  from: RunnerRef | null;
  to: RunnerRef;
  /** The new favourite's fixed win price, when known. */
  price: number | null;
}

export interface Placing {
  position: number;
  entrantId: string;
  runnerNumber: number;
  name: string;
  /**
   * Lengths behind the winner as upstream gives them; null when not given, or when a placed row after the
   * winner says 0 with no positional margin (the real API does that when margins were not measured).
   */
  marginLength: number | null;
  /** Present (true) when another runner shares this position: a dead heat. */
  deadHeat?: true;
}

export interface PlacingChange {
  entrantId: string;
  runnerNumber: number;
  name: string;
  /** Position before (null: was not placed). */
  from: number | null;
  /** Position now (null: no longer placed). */
  to: number | null;
}

export interface ResultsData {
  race: RaceContext;
  /**
   * `interim`: first (unofficial) placings; `final`: the race is Final with these placings; `amended`:
   * placings changed after they were first published (a protest upheld, a correction).
   */
  kind: 'interim' | 'final' | 'amended';
  /** Placings in finishing order. */
  results: Placing[];
  /** Runners whose placing changed from the previous results; empty for first results or a plain confirm. */
  changes: PlacingChange[];
}

export interface DividendRow {
  id: string;
  productName: string;
  tote: string | null;
  status: string;
  dividend: number;
  poolSize: number | null;
  positions: { runnerNumber: number; position: number }[];
  description: string | null;
  /** `new`: not seen before; `changed`: its amount, status or runners changed. */
  change: 'new' | 'changed';
  /** The amount before a change. */
  previousDividend: number | null;
}

export interface DividendsData {
  race: RaceContext;
  /** Every row in this event has this status (`Interim` and `Final` rows come in separate events). */
  status: string;
  dividends: DividendRow[];
}

export interface MeetingRef {
  meetingId: string;
  name: string;
  date: string;
  category: string;
  country: string;
}

export interface MeetingRaceRef {
  raceId: string;
  raceNumber: number;
  name: string;
  startTime: string;
  status: string;
}

export interface MeetingAddedData {
  meeting: MeetingRef;
  races: MeetingRaceRef[];
}

export interface MeetingRaceData {
  meeting: MeetingRef;
  race: MeetingRaceRef;
}

/** A price as the flucs show it: upstream's fluc timestamp and price. */
export interface FlucPoint {
  timestamp: string;
  price: number;
}

/**
 * `odds.plunge` (the fixed win price shortened) and `odds.drift` (it lengthened) by at least the threshold
 * within the window, as the runner's timestamped flucs show it.
 */
export interface PriceMoveData {
  race: RaceContext;
  runner: RunnerRef;
  market: 'fixed_win';
  /** The price the move is measured from: the longest (plunge) or shortest (drift) in the window. */
  from: number;
  /** The newest fluc's price. */
  to: number;
  /** (to - from) / from * 100, rounded to 0.1: negative for a plunge, positive for a drift. */
  changePct: number;
  /** The configured window and the span of this move within it. */
  window: { minutes: number; from: string; to: string };
  /** The flucs that show the move, oldest first: the price in force at the window's start, then each one in it. */
  flucs: FlucPoint[];
}

export interface MoverChangedData {
  race: RaceContext;
  /** The runner upstream flagged as the market mover before (null: none, or not one of this race's runners). */
  from: RunnerRef | null;
  /** The new mover; null when upstream's mover is not one of this race's runners (see `entrant`). */
  to: RunnerRef | null;
  /** The entrant upstream names as the mover, and whether it is in this race's field. */
  entrant: MarketEntrant;
  /** The new mover's fixed win price and its opening fluc, when known (null outside the field). */
  price: number | null;
  openPrice: number | null;
}

export interface DeductionData {
  race: RaceContext;
  /** The scratched runner the deductions come from. */
  runner: RunnerRef;
  /** Deductions as upstream gives them (its `deduction` record: win and place). */
  win: number;
  place: number;
  /** The deductions published before, when they changed. */
  previous: { win: number; place: number } | null;
}

/**
 * One selection of a bet leg, as the bet record names it. `runnerNumber` and `name` are the bet's own
 * labels (data, never used to find a runner); `entrantId` is the entrant the bet names (upstream's uuid,
 * or its 16-byte array form written as a uuid), null when it names none. `inField` says the selection is
 * one of this race's runners: its leg is this race and its entrant id is one of the race's runners.
 */
export interface BetSelection {
  position: number;
  runnerNumber: number | null;
  name: string;
  entrantId: string | null;
  inField: boolean;
}

/** One leg of a bet: the race it is on as the bet names it, and its selections. */
export interface BetLeg {
  /** The leg's race number; null when upstream gives none (0 on a multi-leg pool bet). */
  raceNumber: number | null;
  raceName: string | null;
  meetingName: string | null;
  /** The leg is this race (same race number, and same meeting when the leg names one). */
  thisRace: boolean;
  selections: BetSelection[];
}

export interface BigBetData {
  race: RaceContext;
  /** The bet's product as upstream titles it (`Fixed Win`, `Multi`, `Pool Quadrella`, ...). */
  product: string;
  /** Stake in dollars. */
  stake: number;
  /** The price taken when the bet was placed (0 or null for tote exotics). */
  odds: number | null;
  placedAt: string;
  /** The selections of the bet's legs on this race (empty when no leg is known to be this race). */
  selections: BetSelection[];
  /** Every leg of the bet, this race's and the other races', in upstream order. */
  legs: BetLeg[];
  /** The bet is the race's biggest bet (upstream's `biggest_bet`). */
  biggest: boolean;
}

/**
 * An entrant a market record (mover, money tracker) names. `inField` is false when it is not one of this
 * race's runners (the real API names entrants of other markets): then no runner is named for it.
 */
export interface MarketEntrant {
  entrantId: string;
  name: string | null;
  inField: boolean;
}

export interface MoneyFlowData {
  race: RaceContext;
  /** The runner the money is on; null when the money tracker's entrant is not one of this race's runners. */
  runner: RunnerRef | null;
  entrant: MarketEntrant;
  /** The runner's share of the race's money (sum of its money tracker `hold_percentage` rows), in percent. */
  from: number;
  to: number;
  /** to - from, in percentage points. */
  changePoints: number;
  direction: 'for' | 'against';
  /** The configured window and when each share was observed. */
  window: { minutes: number; from: string; to: string };
}

export interface PoolTotalData {
  race: RaceContext;
  /** The pool's product type as upstream names it (`Win`, `Trifecta`, ...). */
  pool: string;
  /** The highest milestone the total passed (dollars). */
  milestone: number;
  total: number;
  previousTotal: number;
  status: string | null;
}

/** The payload of each event type. */
export interface EventPayloads {
  'race.status_changed': StatusChangedData;
  'race.abandoned': AbandonedData;
  'race.jumped': JumpedData;
  'race.start_time_changed': StartTimeChangedData;
  'race.track_condition_changed': TrackConditionChangedData;
  'race.protest': ProtestData;
  'race.favourite_changed': FavouriteChangedData;
  'race.results': ResultsData;
  'race.dividends': DividendsData;
  'runner.scratched': RunnerScratchedData;
  'runner.reinstated': RunnerRefData;
  'runner.added': RunnerRefData;
  'runner.removed': RunnerRefData;
  'runner.jockey_changed': RunnerJockeyChangedData;
  'odds.changed': OddsChangedData;
  'odds.pools_changed': PoolsChangedData;
  'odds.plunge': PriceMoveData;
  'odds.drift': PriceMoveData;
  'race.mover_changed': MoverChangedData;
  'runner.deduction': DeductionData;
  'market.big_bet': BigBetData;
  'market.money_flow': MoneyFlowData;
  'pool.total': PoolTotalData;
  'meeting.added': MeetingAddedData;
  'meeting.race_added': MeetingRaceData;
  'meeting.race_removed': MeetingRaceData;
}

/** A detected event before the event log gives it an id, sequence and timestamp. */
export type DetectedEvent<K extends EventType = EventType> = {
  [T in K]: { type: T; data: EventPayloads[T] };
}[K];

export type DetectedRaceEvent = DetectedEvent<RaceEventType>;

/** A meeting-level event, keyed by its meeting. */
export type DetectedMeetingEvent = DetectedEvent<MeetingEventType> & { meetingId: string };
