import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { deadHeatAt } from '../../src/simulator/outcome.js';
import { eventsAt } from './sim-stats.js';
import { DAY, settableClock } from './support.js';

type Rec = Record<string, unknown>;
const SEED = 3;

describe('dead heats: two result rows sharing a position, dividends split', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let day: RaceStatic[];
  let heats: { data: Rec }[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: SEED, clock, day: DAY, rateLimit: false });
    day = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned);
    // Any field is large enough for a drawn dead heat to stand; the payloads say where it fell.
    const drawn = day.filter((r) => deadHeatAt(SEED, r, 99) !== null);
    heats = (await eventsAt(sim, clock, drawn, (r) => sim.world.lifecycle(r.id).finalAt, 'enc=json')).filter(
      ({ data }) => {
        const positions = (data.results as Rec[]).map((r) => r.position);
        return new Set(positions).size < positions.length;
      },
    );
  });
  afterAll(() => sim.close());

  it('makes a few every simulated day (rate 1 %, not measured: the real payloads have none)', () => {
    expect(heats.length).toBeGreaterThanOrEqual(3);
    expect(heats.length / day.length).toBeLessThan(0.02);
  });

  it('gives the dead-heaters one position, the second "DH" with no margin, and skips the next position', () => {
    for (const { data } of heats) {
      const rows = data.results as Rec[];
      const k = rows.findIndex((r, i) => rows[i + 1]?.position === r.position);
      const [a, b] = [rows[k] as Rec, rows[k + 1] as Rec];
      expect(b.position).toBe(k + 1);
      expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => (i === k + 1 ? k + 1 : i + 1)));
      expect(b.margin_length).toBe(a.margin_length);
      if ('positional_margin' in b) expect(b.positional_margin).toBe('DH');
    }
  });

  it('pays two Win rows at half price for a dead heat for first, both places at half for the last place', () => {
    let first = 0;
    let lastPlace = 0;
    for (const { data } of heats) {
      const rows = data.results as Rec[];
      const k = rows.findIndex((r, i) => rows[i + 1]?.position === r.position);
      const pair = [rows[k]?.runner_number, rows[k + 1]?.runner_number] as number[];
      const poolPrice = (n: unknown, market: 'pool_win' | 'pool_place') =>
        ((data.runners as Rec[]).find((r) => r.runner_number === n) as { odds: Rec }).odds[market] as number;
      const final = (product: string) =>
        (data.dividends as Rec[]).filter((d) => d.status === 'Final' && d.product_name === product);
      // The rows come in the order of their random ids, as the real ones: compare by runner.
      const paidTo = (product: string) =>
        final(product)
          .map((d) => (d.positions as Rec[])[0]?.runner_number as number)
          .sort((x, y) => x - y);
      const paid = (product: string, n: unknown) =>
        final(product).find((d) => (d.positions as Rec[])[0]?.runner_number === n)?.dividend;
      const half = (n: unknown, market: 'pool_win' | 'pool_place') =>
        Math.round(Math.max(1, poolPrice(n, market) / 2) * 10) / 10;
      const places = (data.race as Rec).positions_paid as number;
      if (k === 0) {
        first++;
        expect(paidTo('Pool Win')).toEqual([...pair].sort((x, y) => x - y));
        for (const n of pair) expect(paid('Pool Win', n)).toBe(half(n, 'pool_win'));
      } else {
        expect(paidTo('Pool Win')).toEqual([rows[0]?.runner_number]);
      }
      if (k === places - 1) {
        lastPlace++;
        expect(paidTo('Pool Place')).toHaveLength(places + 1);
        for (const n of pair) expect(paid('Pool Place', n)).toBe(half(n, 'pool_place'));
      } else if (k < places - 1) {
        expect(paidTo('Pool Place')).toHaveLength(places);
      }
    }
    expect(first).toBeGreaterThan(0);
    expect(lastPlace).toBeGreaterThan(0);
  });
});
