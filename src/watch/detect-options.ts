/**
 * The detectors' options. Apart from the shared context (detect-context.ts) because the market options hold the
 * money memory, whose module reads that context: together they made an import circle.
 */
import type { MarketThresholds } from './market-thresholds.js';
import type { MoneyMemory } from './money-flow.js';

export interface DetectOptions {
  /** A price move of at least this many percent is `significant`. Default 10. */
  significantMovePct?: number;
  /** A scratching within this many hours before the advertised start (or after it) is `late`. Default 12. */
  lateScratchHours?: number;
  /** When the change was observed (ms since epoch); the scratch time when upstream gives none. */
  observedAt?: number;
  /** Thresholds and money memory of the market events (detect-market.ts). */
  market?: Omit<MarketDetectOptions, 'observedAt'>;
}

export interface MarketDetectOptions {
  thresholds?: MarketThresholds;
  /** The race's money memory; without one there is no `market.money_flow`. */
  money?: MoneyMemory;
  /** Race time of the observation (ms), for the money memory. */
  observedAt?: number;
}
