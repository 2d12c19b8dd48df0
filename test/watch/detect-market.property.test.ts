/**
 * Laws of the market detectors over random markets on the real race: no odds.plunge or odds.drift without
 * the price move in the flucs that justifies it, no bet reported twice or below the threshold, no money
 * flow without the share move within the window.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';
import { bet, marketSteps, slimPayload, withFlucs } from './market-support.js';
import { change, type Loose, runner } from './support.js';

const T0 = Date.parse('2025-07-17T00:00:00Z');
const iso = (ms: number) => new Date(ms).toISOString();
const th = DEFAULT_MARKET_THRESHOLDS;

// A runner's fluc history: increasing times (0-20 minutes apart) and prices from 1.5 to 60.
const flucsArb = fc
  .array(fc.tuple(fc.integer({ min: 1, max: 20 * 60 }), fc.integer({ min: 150, max: 6000 })), {
    minLength: 2,
    maxLength: 14,
  })
  .map((steps) => {
    let at = T0;
    return steps.map(([gap, cents]) => {
      at += gap * 1000;
      return { at, timestamp: iso(at), price: cents / 100 };
    });
  });

// Thousands of tracker steps each: generous time on a busy machine, nothing asserted about it.
describe('market detector laws', { timeout: 120_000 }, () => {
  it('reports no odds.plunge or odds.drift without a price move in the flucs that justifies it', () => {
    fc.assert(
      fc.property(flucsArb, fc.integer({ min: 1, max: 3 }), (flucs, stride) => {
        const open = slimPayload();
        const steps = [];
        for (let n = 1; n <= flucs.length; n += stride) {
          const shown = flucs.slice(0, n).map((f) => [f.timestamp, f.price] as [string, number]);
          steps.push({ payload: withFlucs(open, 4, shown) });
        }
        const all = marketSteps(steps).flat();
        for (const e of all) {
          if (e.type !== 'odds.plunge' && e.type !== 'odds.drift') continue;
          const d = e.data;
          const latest = d.flucs.at(-1)!;
          const history = flucs.filter((f) => f.at <= Date.parse(latest.timestamp));
          // Every fluc it shows is one of the runner's, and the move is the one it names.
          for (const f of d.flucs)
            expect(history.some((h) => h.timestamp === f.timestamp && h.price === f.price)).toBe(true);
          expect(d.to).toBe(latest.price);
          expect(d.flucs.some((f) => f.price === d.from)).toBe(true);
          const pct = ((d.to - d.from) / d.from) * 100;
          if (e.type === 'odds.plunge') expect(pct).toBeLessThanOrEqual(-th.plungePct + 0.05);
          else expect(pct).toBeGreaterThanOrEqual(th.driftPct - 0.05);
          // The tick itself moves that way, and `from` held within the window.
          const prevFluc = history.at(-2)!;
          expect(e.type === 'odds.plunge' ? d.to < prevFluc.price : d.to > prevFluc.price).toBe(true);
          const start = Date.parse(latest.timestamp) - th.priceWindowMinutes * 60_000;
          const source = history.filter(
            (h) => h.price === d.from && Date.parse(h.timestamp) < Date.parse(latest.timestamp),
          );
          const held = source.some((h) => {
            const after = history.find((x) => x.at > h.at);
            return h.at > start || (after !== undefined && after.at > start);
          });
          expect(held).toBe(true);
        }
      }),
      { numRuns: 80 },
    );
  });

  it('reports each bet at most once, at or above the threshold, and only bets the payload lists', () => {
    const betArb = fc.record({
      gap: fc.integer({ min: 1, max: 300 }),
      stake: fc.integer({ min: 1, max: 400 }).map((n) => n * 50),
      runner: fc.integer({ min: 1, max: 8 }),
    });
    fc.assert(
      fc.property(
        fc.array(betArb, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 5 }),
        (drafts, per) => {
          let at = T0;
          const bets = drafts.map((b) => {
            at += b.gap * 1000;
            return bet('Win', b.stake, iso(at), [b.runner], 5);
          });
          const steps = [{ payload: change(slimPayload(), (d) => (d.big_bets = [])) }];
          for (let n = per; n < bets.length + per; n += per) {
            const listed = bets.slice(0, n).reverse().slice(0, 10);
            steps.push({ payload: change(slimPayload(), (d: Loose) => (d.big_bets = listed)) });
          }
          const seen = new Set<string>();
          marketSteps(steps).forEach((events, i) => {
            for (const e of events) {
              if (e.type !== 'market.big_bet') continue;
              const key = `${e.data.placedAt}|${e.data.stake}`;
              expect(seen.has(key)).toBe(false);
              seen.add(key);
              expect(e.data.stake).toBeGreaterThanOrEqual(th.bigBetMinStake);
              const listed = (steps[i]!.payload.data as Loose).big_bets as Loose[];
              expect(listed.some((b) => Date.parse(b.place_time) === Date.parse(e.data.placedAt))).toBe(true);
            }
          });
          // Listed in steps of at most 5 from a 10-long list, no big bet is missed.
          const big = bets.filter((b) => b.stake >= th.bigBetMinStake).length;
          expect(seen.size).toBe(big);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('reports no money flow without the share moving by the threshold within the window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 10, max: 600 }), fc.integer({ min: 0, max: 30 })), {
          minLength: 2,
          maxLength: 20,
        }),
        (moves) => {
          let at = T0;
          const shareAt: number[] = [];
          const steps = moves.map(([gap, hold], i) => {
            at += gap * 1000;
            shareAt.push(hold);
            const payload = change(slimPayload(), (d) => {
              d.race.track_condition = `step ${i}`;
              d.money_tracker.entrants = [
                { entrant_id: runner(d, 4).entrant_id, hold_percentage: hold, bet_percentage: 0 },
              ];
            });
            return { payload, at };
          });
          marketSteps(steps).forEach((events, i) => {
            for (const e of events) {
              if (e.type !== 'market.money_flow') continue;
              expect(e.data.to).toBe(shareAt[i]);
              expect(Math.abs(e.data.to - e.data.from)).toBeGreaterThanOrEqual(th.moneyFlowPoints);
              const span = Date.parse(e.data.window.to) - Date.parse(e.data.window.from);
              expect(span).toBeGreaterThan(0);
              expect(span).toBeLessThanOrEqual(th.moneyWindowMinutes * 60_000);
              // `from` is a share observed at window.from.
              const j = steps.findIndex((s) => s.at === Date.parse(e.data.window.from));
              expect(shareAt[j]).toBe(e.data.from);
            }
          });
        },
      ),
      { numRuns: 60 },
    );
  });
});
