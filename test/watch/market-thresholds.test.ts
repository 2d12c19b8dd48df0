import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';
import { configProblems } from '../support/config-problems.js';

describe('market settings', () => {
  it('default to the hot window, the three options and the documented thresholds', () => {
    const config = loadConfig({});
    expect(config.MARKET_DATA).toBe('hot');
    expect(config.MARKET_DATA_WINDOW_MIN).toBe(30);
    expect(config.MARKET_DATA_OPTIONS).toEqual(['with_big_bets', 'with_biggest_bet', 'with_money_tracker']);
    expect(config.MARKET_THRESHOLDS).toEqual(DEFAULT_MARKET_THRESHOLDS);
  });

  it('take thresholds as name=value pairs over the defaults', () => {
    const config = loadConfig({
      MARKET_THRESHOLDS: 'bigBetMinStake=10000, plungePct=30,poolMilestones=50000/10000',
      MARKET_DATA_OPTIONS: 'with_live_bets,with_money_tracker',
    });
    expect(config.MARKET_THRESHOLDS).toEqual({
      ...DEFAULT_MARKET_THRESHOLDS,
      bigBetMinStake: 10_000,
      plungePct: 30,
      poolMilestones: [10_000, 50_000],
    });
    expect(config.MARKET_DATA_OPTIONS).toEqual(['with_live_bets', 'with_money_tracker']);
  });

  it('refuse an unknown name, a bad value or an unofficial option, naming the setting', () => {
    const problems = configProblems;
    expect(problems({ MARKET_THRESHOLDS: 'bigBet=5' })[0]).toMatch(
      /^MARKET_THRESHOLDS="bigBet=5": bigBet=5: the names are bigBetMinStake, plungePct/,
    );
    expect(problems({ MARKET_THRESHOLDS: 'plungePct=-3' })[0]).toMatch(
      /plungePct=-3: the value must be a positive number/,
    );
    expect(problems({ MARKET_DATA_OPTIONS: 'big_bets' })[0]).toMatch(
      /^MARKET_DATA_OPTIONS="big_bets": .*Fix: set/,
    );
  });
});
