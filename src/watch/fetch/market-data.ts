/**
 * Which market members racewire asks /events for, per race and instant (the poller's `eventOptions`).
 * The data matters near the jump, where bets land and money moves; far out it would only make every
 * payload and snapshot bigger. So by default the options are on from the hot window before the
 * advertised start onward (and stay on after it: turning them off would null the members, a patch that
 * says nothing), and off before it. docs/events.md#market-events has the settings; docs/benchmarks.md
 * what the data costs per payload.
 */
import type { EventOptions } from '../../upstream/client.js';
import type { RaceWatch } from '../track/race-watch.js';

/** The official option names racewire can ask for, and the client's name for each. */
export const MARKET_OPTIONS = {
  with_big_bets: 'withBigBets',
  with_live_bets: 'withLiveBets',
  with_biggest_bet: 'withBiggestBet',
  with_money_tracker: 'withMoneyTracker',
} as const satisfies Record<string, keyof EventOptions>;

export type MarketOption = keyof typeof MARKET_OPTIONS;

export interface MarketDataPolicy {
  /** `hot`: within `windowMinutes` of the advertised start and after; `always`; `off`. */
  mode: 'hot' | 'always' | 'off';
  windowMinutes: number;
  options: readonly MarketOption[];
}

export function marketEventOptions(policy: MarketDataPolicy): (race: RaceWatch, now: number) => EventOptions {
  const on: EventOptions = Object.fromEntries(policy.options.map((o) => [MARKET_OPTIONS[o], true]));
  return (race, now) => {
    if (policy.mode === 'off') return {};
    if (policy.mode === 'always') return on;
    return now >= race.startTime - policy.windowMinutes * 60_000 ? on : {};
  };
}
