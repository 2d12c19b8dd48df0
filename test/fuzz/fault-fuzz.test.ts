/**
 * The short run of the fault fuzz (fault-fuzz.ts): a few seeded race days with faults in 30% of polls.
 * The long run is `npm run fuzz -- --minutes N` (scripts/fuzz.ts).
 */
import { describe, expect, it } from 'vitest';
import { runCase } from './fault-fuzz.js';

describe('fault fuzz (short)', () => {
  it('emits no false event and every true change exactly once, on 12 faulty race days', () => {
    const results = Array.from({ length: 12 }, (_, i) => runCase(1000 + i));
    expect(results.flatMap((r) => r.failures)).toEqual([]);
    expect(results.reduce((n, r) => n + r.faults, 0)).toBeGreaterThan(100);
    expect(results.reduce((n, r) => n + r.latency.confirmed.length, 0)).toBeGreaterThan(0);
    // The real structures its truth holds were served (issue 22): short result lists without margins,
    // interleaved dividend rows, tips, mover and money tracker outside the field, the doubles and treble
    // with guarantees and a concession dividend, a dead heat, a protest while Interim then upheld or
    // dismissed, and the meeting's bets (legs on other races, selections null, a uuid entrant id sent as
    // bytes).
    for (const name of [
      'results: top rows only',
      'results: margins absent',
      'dividends: Interim and Final interleaved',
      'tips outside the field',
      'mover outside the field',
      'money tracker outside the field',
      'results: dead heat',
      'race: protest while Interim',
      'race: protest upheld',
      'race: protest dismissed',
      'bets: legs on other races',
      'bets: selections null',
      'bets: uuid-string entrant ids',
      'pools: RunningDouble, Double or Treble',
      'pools: non-zero guarantee',
      'dividends: concession',
    ] as const)
      expect([name, results.some((r) => r.served[name] > 0)]).toEqual([name, true]);
  });

  it('is not vacuous: a tracker that believes every claim at once fails it on the same race days', () => {
    // The oracle is not vacuous: a tracker that believed every payload fails it on these seeds. One failing
    // day shows it, so the days run in order until the first that fails (`find` stops there).
    const believing = { trackOptions: { confirmPayloads: 1, confirmMs: 0 } };
    const failed = Array.from({ length: 12 }, (_, i) => 1000 + i).find(
      (seed) => runCase(seed, believing).failures.length > 0,
    );
    console.log(`a believing tracker first fails on seed ${failed}`);
    expect(failed).toBeDefined();
  });
});
