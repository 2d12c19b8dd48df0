import { describe, expect, it } from 'vitest';
import { ladder, placeOf } from '../../src/simulator/changes.js';
import { moneyIn, toteTick } from '../../src/simulator/tote.js';
import { realEvent } from './measure.js';

type Runner = { odds: { fixed_win: number }; flucs: number[] };

const MIN = 60_000;
const S = Date.parse('2026-11-22T05:00:00Z');

describe('the tote clock and the price ladders', () => {
  it('ticks every 5 min from 6 h out, every minute from 60 min out, every 15 s from 10 min out, and at the close', () => {
    expect(toteTick(S - 6 * 60 * MIN - 1, S, null)).toBeNull();
    expect(toteTick(S - 6 * 60 * MIN, S, null)).toBe(S - 6 * 60 * MIN);
    expect(toteTick(S - 61 * MIN - 1, S, null)).toBe(S - 65 * MIN);
    expect(toteTick(S - 59 * MIN - 1, S, null)).toBe(S - 60 * MIN);
    expect(toteTick(S - 10 * MIN - 1, S, null)).toBe(S - 11 * MIN);
    expect(toteTick(S - 10 * MIN + 14_999, S, null)).toBe(S - 10 * MIN);
    expect(toteTick(S + 2 * MIN + 20_000, S, null)).toBe(S + 2 * MIN + 15_000);
    const close = S + 100_123;
    expect(toteTick(close, S, close)).toBe(close);
    expect(toteTick(close + 3_600_000, S, close)).toBe(close);
    expect(toteTick(close - 1, S, close)).toBe(S + 90_000);
  });

  it('takes half the money by a minute before the advertised start, and more every tick', () => {
    expect(moneyIn(S - MIN, S)).toBe(0.5);
    expect(moneyIn(S - 6 * 60 * MIN, S)).toBeLessThan(0.01);
    let last = 0;
    for (let t = S - 6 * 60 * MIN; t <= S + 5 * MIN; t += 15_000) {
      expect(moneyIn(t, S)).toBeGreaterThanOrEqual(last);
      last = moneyIn(t, S);
    }
    expect(last).toBe(1);
  });

  it('keeps every real price on its ladder: two-decimal steps below 3, single units above 30', () => {
    const real = (realEvent().data.runners as Runner[]).flatMap((r) => [r.odds.fixed_win, ...r.flucs]);
    // Awapuni's prices and flucs, and issue 22's second payload's 2.35, 2.45, 31.
    for (const price of [...real, 2.35, 2.45, 31]) expect([price, ladder(price)]).toEqual([price, price]);
    expect(ladder(2.33)).toBe(2.35);
    expect(ladder(31.4)).toBe(31);
    expect(ladder(4.44)).toBe(4.4);
  });

  it('prices fixed place from fixed win within 0.1 of every real runner', () => {
    for (const r of realEvent().data.runners as { odds: { fixed_win: number; fixed_place: number } }[]) {
      expect(Math.abs(placeOf(r.odds.fixed_win) - r.odds.fixed_place)).toBeLessThan(0.101);
    }
  });
});
