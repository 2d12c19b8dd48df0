/** What the scheduler knows about each race: learnt from discovery and from the race's own fetches. */

export type DividendStage = 'none' | 'interim' | 'final';

export interface RaceWatch {
  raceId: string;
  meetingId: string;
  meetingName: string;
  raceNumber: number;
  name: string;
  country: string;
  /** Racing code: T, H or G. */
  category: string;
  /** Advertised start, epoch ms (discovery keeps it current when the start is delayed). */
  startTime: number;
  /** Latest known status, from discovery or from the race's last document. */
  status: string;
  /** When discovery first listed the race. */
  discoveredAt: number;
  /** When the last fetch of /events for this race finished, successfully or not. */
  lastFetchAt?: number;
  /** When the last usable payload arrived: staleness is measured from here. */
  lastGoodAt?: number;
  /**
   * When a previous term last fetched it, as the leader published (handed-over.ts), even if a wiped store
   * lost the document since: orders the races near their jump this term has not fetched (scheduler.ts).
   */
  handedOverAt?: number;
  /** Discovery saw a change (status, start time) that the race's document does not show yet. */
  dirty: boolean;
  /** Dividend rows in the last document: none yet, Interim only, or Final. */
  dividends: DividendStage;
  /**
   * When the race was first seen Interim (from discovery or a document): its Interim dividends are due from
   * a set time after it (poll-policy.ts, `dividendsDeadline`).
   */
  interimAt?: number;
  /** When the race was first seen Final or Abandoned (from discovery or a document). */
  finishedAt?: number;
  /** Fetches that failed in a row (bad payload, 5xx, timeout); reset by a good one. */
  failures: number;
  /**
   * The last document left claims waiting for confirmation (trust.ts: a Final with reordered placings after
   * an upheld protest is held until later payloads confirm it), so the race is not settled yet.
   */
  pending?: boolean;
}

export const FINISHED_STATUSES: ReadonlySet<string> = new Set(['Final', 'Abandoned']);
/** Statuses in which the race has run (or is running) but results are not official yet. */
export const RUN_STATUSES: ReadonlySet<string> = new Set(['Closed', 'Interim']);
