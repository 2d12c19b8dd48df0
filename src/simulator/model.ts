/** Types of the simulated world: static race data, timed changes, and a race's state at an instant. */
import type { MeetingExtras } from './data.js';

export type ChangeType =
  | 'odds'
  | 'scratching'
  | 'reinstatement'
  | 'status'
  | 'start_time'
  | 'results'
  | 'dividends'
  | 'track_condition'
  | 'protest'
  | 'promotion';

/** One change the world makes, as journalled. `detail` is plain JSON. */
export interface SimChange {
  at: number;
  raceId: string;
  meetingId: string;
  type: ChangeType;
  detail: Record<string, unknown>;
}

export interface Silk {
  pattern: string;
  body: string;
  trim: string;
  cap: string;
}

export interface RunnerStatic {
  entrantId: string;
  horseId: number;
  number: number;
  barrier: number;
  name: string;
  jockey: string;
  trainer: string;
  weight: number;
  /** last_twenty_starts, e.g. "4776X". */
  form: string;
  /** Relative chance to win at the market's open (latent; prices are drawn from it). */
  strength: number;
  /** Price when the market opens. */
  openWin: number;
  silk: Silk;
  /** Emergency position (1, 2) when acceptances list the runner as an emergency; null in the field. */
  emergency: number | null;
}

export interface MeetingStatic {
  id: string;
  /** YYYY-MM-DD of the meeting's date. */
  dayKey: string;
  /** Position in the day's timetable (ordered by first start). */
  index: number;
  name: string;
  category: 'T' | 'H' | 'G' | string;
  country: string;
  state: string;
  trackCondition: string;
  weather: string;
  /** Midnight UTC of the meeting's date, epoch ms. */
  date: number;
  /** Advertised start of its first race. */
  firstStart: number;
  /** When /meetings starts listing it and its markets open. */
  listedAt: number;
  toteMeetingNumber: number;
  /** What the real list adds to this meeting (tote meetings). */
  extras: MeetingExtras;
  /** Race numbers of the early quaddie and the quaddie legs (empty when the real meeting had none). */
  earlyQuaddie: number[];
  quaddie: number[];
  /** Track downgraded during the day: each race not yet run journals it. */
  downgrade: { at: number; to: string } | null;
  races: RaceStatic[];
}

export interface RaceStatic {
  id: string;
  meeting: MeetingStatic;
  raceNumber: number;
  name: string;
  distance: number;
  /** Advertised start before any delay, epoch ms. */
  advertisedStart: number;
  marketOpen: number;
  /** Abandoned in the real day: the simulated race is abandoned before its start. */
  abandoned: boolean;
  /** Scale of its tote pools against the real race's. */
  poolScale: number;
  /** Built on first use. */
  readonly runners: RunnerStatic[];
  /** Drops the field built on first use: built again, the same, from the seed if asked for again. */
  releaseRunners(): void;
}

export interface Fluc {
  at: number;
  win: number;
}

export interface RunnerState {
  fixedWin: number;
  fixedPlace: number;
  flucs: Fluc[];
  scratchedAt: number | null;
  late: boolean;
  /** Fixed-odds deduction of a late scratching, cents in the dollar. */
  deduction: { win: number; place: number } | null;
  /** Emergency position while the runner waits for a start; null in the field or once promoted. */
  emergency: number | null;
}

export interface ResultRow {
  entrantId: string;
  position: number;
  marginLength: number;
  positionalMargin: string;
  timeRan: number;
}

export interface DividendRow {
  id: string;
  product: string;
  status: 'Interim' | 'Final';
  dividend: number;
  poolSize: number;
  positions: { runner_number: number; position: number }[];
  /** When not the selection's runner numbers joined by ':' (a concession pool's `concession:2/7`). */
  description?: string;
}

export interface RaceState {
  status: string;
  startTime: number;
  actualStart: number | null;
  /** When the status first left Open (betting closed or abandoned): markets freeze there. */
  closedAt: number | null;
  trackCondition: string;
  runners: Map<string, RunnerState>;
  results: ResultRow[] | null;
  dividends: DividendRow[];
  /** Present once a protest or disqualification was decided (upheld or dismissed). */
  protest: { reason: string } | null;
}

/** A change inside the world: the journalled part plus what the reducer needs. */
export interface TimedChange extends SimChange {
  /** Tie-break for changes at the same instant. */
  seq: number;
  /** Whether it was scripted (by a test or the control API) rather than precomputed. */
  scripted: boolean;
  results?: ResultRow[];
  dividends?: DividendRow[];
}
