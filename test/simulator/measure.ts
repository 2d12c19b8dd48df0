/** Assertions comparing a simulator statistic with the real one (real-data.ts), naming both on failure. */
import { expect } from 'vitest';

export * from './real-data.js';

/** Asserts |sim - real| <= tolerance x |real|, naming the statistic in the failure. */
export function expectWithin(name: string, sim: number, real: number, tolerance: number): void {
  const ok = Math.abs(sim - real) <= tolerance * Math.abs(real);
  expect(
    ok,
    `${name}: simulator ${sim.toFixed(3)}, real ${real.toFixed(3)}, tolerance ${tolerance * 100} %`,
  ).toBe(true);
}

/** Asserts |sim - real| <= delta (for shares and other figures near 0). */
export function expectNear(name: string, sim: number, real: number, delta: number): void {
  expect(
    Math.abs(sim - real) <= delta,
    `${name}: simulator ${sim.toFixed(3)}, real ${real.toFixed(3)}, +-${delta}`,
  ).toBe(true);
}
