/** Types of the simulated world: static race data, timed changes, and a race's state at an instant. */

export type ChangeType =
  | 'odds'
  | 'scratching'
  | 'reinstatement'
  | 'status'
  | 'start_time'
  | 'results'
  | 'dividends'
  | 'track_condition'
  | 'protest';

/** One change the world makes, as journalled. `detail` is plain JSON. */
export interface SimChange {
  at: number;
  raceId: string;
  meetingId: string;
  type: ChangeType;
  detail: Record<string, unknown>;
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
  form: string;
  /** Price when the market opens. */
  openWin: number;
}

export interface MeetingStatic {
  id: string;
  index: number;
  name: string;
  category: 'T' | 'H' | 'G' | string;
  country: string;
  state: string;
  trackCondition: string;
  weather: string;
  /** Midnight UTC of the meeting's date, epoch ms. */
  date: number;
  toteMeetingNumber: number;
  races: RaceStatic[];
}

export interface RaceStatic {
  id: string;
  index: number;
  meeting: MeetingStatic;
  raceNumber: number;
  name: string;
  distance: number;
  /** Advertised start before any delay, epoch ms. */
  advertisedStart: number;
  marketOpen: number;
  runners: RunnerStatic[];
  positionsPaid: number;
  poolScale: number;
}

export interface Fluc {
  at: number;
  win: number;
}

export interface RunnerState {
  fixedWin: number;
  fixedPlace: number;
  poolWin: number;
  poolPlace: number;
  flucs: Fluc[];
  scratchedAt: number | null;
  late: boolean;
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
}

export interface RaceState {
  status: string;
  startTime: number;
  actualStart: number | null;
  trackCondition: string;
  runners: Map<string, RunnerState>;
  results: ResultRow[] | null;
  dividends: DividendRow[];
  protest: boolean;
  /** Number of odds moves so far: pool totals grow with it (step-wise, so every change is journalled). */
  moves: number;
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
