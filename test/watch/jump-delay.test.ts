import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { JUMP_DELAYS_S, remainingJumpDelays } from '../../src/watch/schedule/jump-delay.js';

const load = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/real/${name}`, import.meta.url), 'utf8'));

describe('jump delays', () => {
  it('are the real races list: actual minus advertised start of every race, by region', () => {
    const countryOf = new Map<string, string>();
    for (const m of load('meetings-day.json').data.meetings)
      for (const r of m.races) countryOf.set(r.id, m.country);
    const measured = { northAmerica: [] as number[], elsewhere: [] as number[] };
    for (const r of load('races-list.json').data.races) {
      if (typeof r.number !== 'number') continue;
      const delay = (Date.parse(r.actual_start) - Date.parse(r.advertised_start)) / 1000;
      const na = ['USA', 'CA'].includes(countryOf.get(r.id) ?? '');
      measured[na ? 'northAmerica' : 'elsewhere'].push(delay);
    }
    for (const list of Object.values(measured)) list.sort((a, b) => a - b);
    expect(measured).toEqual(JUMP_DELAYS_S);
  });

  it('conditions on the race not having jumped: only later delays remain, and past them all, a minute', () => {
    expect(remainingJumpDelays('NZ', 300)).toEqual([339]);
    expect(remainingJumpDelays('USA', 400)).toEqual([407, 1423]);
    expect(remainingJumpDelays('NZ', 400)).toEqual([460]);
    expect(remainingJumpDelays('AUS', 0)).toHaveLength(JUMP_DELAYS_S.elsewhere.length);
    expect(remainingJumpDelays('AUS', -600)).toEqual(JUMP_DELAYS_S.elsewhere);
  });

  it('counts the gap a late race is in as within a minute, not at the far end of a sparse tail', () => {
    // 428 s late in North America: the next measured delay is 1,423 s; the race goes when it is ready.
    expect(remainingJumpDelays('USA', 428)).toEqual([488]);
    expect(remainingJumpDelays('USA', 1000)).toEqual([1060]);
    expect(remainingJumpDelays('NZ', 200)).toEqual([260, 339]);
  });
});
