/** The detectors' options: thresholds and the time of the observation, never memory (detect.ts carries it). */
import type { MarketThresholds } from './market-thresholds.js';

export interface DetectOptions {
  /** A price move of at least this many percent is `significant`. Default 10. */
  significantMovePct?: number;
  /** A scratching within this many hours before the advertised start (or after it) is `late`. Default 12. */
  lateScratchHours?: number;
  /** When the change was observed (ms since epoch); the scratch time when upstream gives none. */
  observedAt?: number;
  /** Thresholds of the market events (detect-market.ts). */
  market?: Omit<MarketDetectOptions, 'observedAt'>;
}

export interface MarketDetectOptions {
  thresholds?: MarketThresholds;
  /** Race time of the observation (ms), for the money memory. */
  observedAt?: number;
}
