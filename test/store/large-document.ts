/** Test data shared by the contract suite and the throughput measurement (no vitest import here). */

/** A ~250 KB race-like document: many runners with many keys, like the real event payload. */
export function largeDocument(): Record<string, unknown> {
  const runners = Array.from({ length: 16 }, (_, r) => ({
    entrant_id: `runner-${r}`,
    name: `Runner Number ${r}`,
    odds: { fixed_win: 2.5 + r, fixed_place: 1.2 + r / 10 },
    ...Object.fromEntries(
      Array.from({ length: 90 }, (_, k) => [`field_${k}`, `value ${r}-${k} ${'x'.repeat(140)}`]),
    ),
  }));
  return { race: { id: 'r1', status: 'Open', name: 'Large Race' }, runners, dividends: {} };
}
