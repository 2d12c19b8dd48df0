import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type DividendRowLike,
  formatDividendSummary,
  summariseDividends,
} from '../../clients/js/src/dividends.js';

interface RealRow {
  product_name: string;
  status: string;
  dividend: number;
  description: string;
  positions: { runner_number: number; position: number }[];
}
/** The real Awapuni R1 dividends, in upstream's order (Interim and Final rows interleaved). */
const real: DividendRowLike[] = (
  JSON.parse(readFileSync(new URL('../fixtures/real/event-final-awapuni.json', import.meta.url), 'utf8')).data
    .dividends as RealRow[]
).map((r) => ({
  productName: r.product_name,
  status: r.status,
  dividend: r.dividend,
  description: r.description,
  positions: r.positions.map((p) => ({ runnerNumber: p.runner_number, position: p.position })),
}));

describe('the dividend summary', () => {
  it('reads the real rows Win first, then Place with runner numbers, Quinella, Trifecta, First Four', () => {
    expect(formatDividendSummary(real, { finishOrder: [2, 4, 7, 6] })).toBe(
      'Win #2 $6.60 · Place #2 $1.70, #4 $1.90, #7 $3.70 · Quinella 2-4 $13.70 · Trifecta 2-4-7 $396.60 · First Four 2-4-7-6 $1,350.40',
    );
  });

  it('takes the Final row over its Interim twin, whichever comes first', () => {
    const interim = {
      productName: 'Pool Win',
      status: 'Interim',
      dividend: 6.4,
      positions: [{ runnerNumber: 2 }],
    };
    const final = { ...interim, status: 'Final', dividend: 6.6 };
    expect(summariseDividends([final, interim])).toEqual([
      { label: 'Win', parts: [{ runners: '2', amount: 6.6 }] },
    ]);
    expect(summariseDividends([interim, final])).toEqual([
      { label: 'Win', parts: [{ runners: '2', amount: 6.6 }] },
    ]);
  });

  it('orders Place by runner number when the finish is not known', () => {
    expect(formatDividendSummary(real.filter((r) => r.productName === 'Pool Place'))).toBe(
      'Place #2 $1.70, #4 $1.90, #7 $3.70',
    );
  });

  it('puts the exotics after the common pools and keeps an unknown pool by its own name', () => {
    const rows: DividendRowLike[] = [
      { productName: 'Pool Mystery6', status: 'Final', dividend: 12, description: '1:2' },
      { productName: 'Pool Double', status: 'Final', dividend: 30.5, description: 'concession:2/7' },
      {
        productName: 'Pool Exacta',
        status: 'Final',
        dividend: 20,
        positions: [{ runnerNumber: 2 }, { runnerNumber: 4 }],
      },
      { productName: 'Pool Win', status: 'Final', dividend: 3, positions: [{ runnerNumber: 2 }] },
    ];
    expect(summariseDividends(rows).map((l) => l.label)).toEqual(['Win', 'Double', 'Exacta', 'Mystery6']);
    expect(formatDividendSummary(rows)).toBe(
      'Win #2 $3.00 · Double concession:2/7 $30.50 · Exacta 2-4 $20.00 · Mystery6 1-2 $12.00',
    );
  });

  it('shows the first pools and counts the rest', () => {
    expect(formatDividendSummary(real, { max: 2, finishOrder: [2, 4, 7, 6] })).toBe(
      'Win #2 $6.60 · Place #2 $1.70, #4 $1.90, #7 $3.70 · +3 more',
    );
  });

  it('keeps a product named like an object member as a name', () => {
    const rows = ['__proto__', 'constructor', 'toString'].map((productName) => ({
      productName,
      dividend: 1,
    }));
    expect(summariseDividends(rows).map((l) => l.label)).toEqual(['__proto__', 'constructor', 'toString']);
  });
});
