/**
 * Every threshold of the market detectors, in one place (docs/events.md#market-events). A deployment sets
 * them with the MARKET_* settings (src/config.ts); a webhook endpoint can raise them for itself with its
 * filters (docs/webhooks.md), never lower them below what was detected.
 */
export interface MarketThresholds {
  /** `market.big_bet`: a new bet of at least this stake, in dollars. @default 1000 */
  bigBetMinStake: number;
  /** `odds.plunge`: the fixed win price shortens by at least this many percent within the window. @default 20 */
  plungePct: number;
  /** `odds.drift`: the fixed win price lengthens by at least this many percent within the window. @default 25 */
  driftPct: number;
  /** Window of `odds.plunge` / `odds.drift`, in minutes, measured on the flucs' timestamps. @default 15 */
  priceWindowMinutes: number;
  /** `market.money_flow`: a runner's share of the money moves by at least this many points. @default 5 */
  moneyFlowPoints: number;
  /** Window of `market.money_flow`, in minutes of race time. @default 10 */
  moneyWindowMinutes: number;
  /** `pool.total`: the dollar totals a tote pool announces passing. */
  poolMilestones: readonly number[];
}

export const DEFAULT_MARKET_THRESHOLDS: MarketThresholds = {
  bigBetMinStake: 1000,
  plungePct: 20,
  driftPct: 25,
  priceWindowMinutes: 15,
  moneyFlowPoints: 5,
  moneyWindowMinutes: 10,
  poolMilestones: [1_000, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000, 1_000_000],
};

export const marketThresholds = (overrides: Partial<MarketThresholds> = {}): MarketThresholds => ({
  ...DEFAULT_MARKET_THRESHOLDS,
  ...Object.fromEntries(Object.entries(overrides).filter(([, v]) => v !== undefined)),
});

const NUMBER_KEYS = [
  'bigBetMinStake',
  'plungePct',
  'driftPct',
  'priceWindowMinutes',
  'moneyFlowPoints',
  'moneyWindowMinutes',
] as const;

/**
 * Thresholds from the MARKET_THRESHOLDS setting: comma-separated `name=value` pairs over the defaults,
 * e.g. `bigBetMinStake=5000,plungePct=25`; `poolMilestones` takes values separated by `/`
 * (`poolMilestones=10000/50000`). Throws an Error naming the bad pair.
 */
export function parseMarketThresholds(text: string | undefined): MarketThresholds {
  const out: Partial<Record<keyof MarketThresholds, unknown>> = {};
  for (const pair of (text ?? '').split(',').filter((p) => p.trim() !== '')) {
    const [name = '', value = ''] = pair.split('=').map((s) => s.trim());
    if (name === 'poolMilestones') {
      const list = value.split('/').map(Number);
      if (list.length === 0 || list.some((n) => !Number.isFinite(n) || n <= 0))
        throw new Error(`${pair}: poolMilestones takes positive numbers separated by /`);
      out.poolMilestones = list.sort((a, b) => a - b);
      continue;
    }
    if (!(NUMBER_KEYS as readonly string[]).includes(name))
      throw new Error(`${pair}: the names are ${[...NUMBER_KEYS, 'poolMilestones'].join(', ')}`);
    const n = Number(value);
    if (value === '' || !Number.isFinite(n) || n <= 0)
      throw new Error(`${pair}: the value must be a positive number`);
    out[name as (typeof NUMBER_KEYS)[number]] = n;
  }
  return marketThresholds(out as Partial<MarketThresholds>);
}
