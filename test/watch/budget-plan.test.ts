import { describe, expect, it } from 'vitest';
import { planBudget } from '../../src/watch/schedule/budget-plan.js';
import { BAND_PEAK_GRACE_MS, NEAR_JUMP_MS, PEAK_RACES } from '../../src/watch/schedule/peak.js';
import { pollPolicy } from '../../src/watch/schedule/poll-policy.js';
import { pickNext } from '../../src/watch/schedule/scheduler.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';
import { watchedRace } from '../support/race-watch.js';

const S = 1000;
const MIN = 60 * S;
const T0 = Date.parse('2026-11-25T08:00:00Z');

/** Races at fixed distances from their start (ms), by class: a phase of the poll policy each. */
const CLASSES = [
  { name: 'near', toStart: 7 * MIN, count: 4 },
  { name: 'warming', toStart: 20 * MIN, count: 10 },
  { name: 'later', toStart: 2 * 60 * MIN, count: 30 },
  { name: 'far', toStart: 10 * 60 * MIN, count: 100 },
] as const;

const race = (raceId: string, startTime: number): RaceWatch =>
  watchedRace({ raceId, startTime, discoveredAt: T0 });

function field(now: number): Map<string, RaceWatch> {
  const races = new Map<string, RaceWatch>();
  for (const c of CLASSES)
    for (let i = 0; i < c.count; i++) races.set(`${c.name}-${i}`, race(`${c.name}-${i}`, now + c.toStart));
  return races;
}

const classOf = (raceId: string) => raceId.split('-')[0] as string;
const rate = (intervals: Iterable<number>) => [...intervals].reduce((a, ms) => a + 60_000 / ms, 0);

describe('the budget plan', () => {
  it('gives every race its minimum interval when the budget covers them all, and says so', () => {
    const races = field(T0);
    const plan = planBudget({ races: races.values(), now: T0, subscribers: new Map(), racesPerMinute: 1000 });
    expect(plan.saturated).toBe(false);
    for (const r of races.values())
      expect(plan.intervalMs.get(r.raceId)).toBe(pollPolicy(r, T0, 0)?.minIntervalMs);
    expect(plan.nearJump).toBe(4);
  });

  it('spends exactly the budget when the races ask for more: each slice by its rule, the rest to the races at their jump', () => {
    const races = field(T0);
    const plan = planBudget({ races: races.values(), now: T0, subscribers: new Map(), racesPerMinute: 60 });
    expect(plan.saturated).toBe(true);
    expect(rate(plan.intervalMs.values())).toBeCloseTo(60, 6);
    const of = (cls: string) => plan.intervalMs.get(`${cls}-0`)!;
    // Late scratchings: each race within the hour every 225 s.
    expect(of('warming')).toBe(225 * S);
    // Early scratchings: the 30 races 1-3 h out every 18 minutes (30/18 a minute, within 8 % of 60), and 1 %
    // of 60 a minute (0.6) over the 100 races further out.
    expect(of('later')).toBe(18 * MIN);
    expect(of('far')).toBeCloseTo((100 / 0.6) * MIN, 6);
    // The rest, 60 - 10 x 60/225 - 30/18 - 0.6 a minute, evenly over the four races at their jump (equal weights).
    const early = 30 / 18 + 0.6;
    const rest = 60 - (10 * 60) / 225 - early;
    expect(of('near')).toBeCloseTo((4 * MIN) / rest, 6);
    expect(plan.slices.nearJump).toBeCloseTo(rest, 6);
    expect(plan.slices.lateScratchings).toBeCloseTo((10 * 60) / 225, 6);
    expect(plan.slices.earlyScratchings).toBeCloseTo(early, 6);
    expect(plan.slices.postJump).toBe(0);
    expect(plan.nearJumpShare).toBeCloseTo(rest / 60, 6);
  });

  it('in a peak of races near their jump, plans the band at its latest age and nothing further out (issue 26)', () => {
    const races = field(T0);
    for (let i = 4; i < PEAK_RACES; i++) races.set(`near-${i}`, race(`near-${i}`, T0 + 7 * MIN));
    const plan = planBudget({ races: races.values(), now: T0, subscribers: new Map(), racesPerMinute: 60 });
    expect(plan.intervalMs.get('later-0')).toBe(18 * MIN + BAND_PEAK_GRACE_MS);
    expect(plan.intervalMs.has('far-0')).toBe(false);
    const rest = 60 - (10 * 60) / 225 - 30 / 19;
    expect(plan.slices.nearJump).toBeCloseTo(rest, 6);
  });

  it('keeps a subscribed race within the scheduler’s subscribed maximum', () => {
    const races = field(T0);
    const plan = planBudget({
      races: races.values(),
      now: T0,
      subscribers: new Map([['far-0', 1]]),
      racesPerMinute: 60,
    });
    expect(plan.intervalMs.get('far-0')).toBe(10 * S);
    expect(rate(plan.intervalMs.values())).toBeCloseTo(60, 6);
  });

  it('leaves out races the scheduler will not fetch again, and counts a jumped race as near the jump', () => {
    const races = new Map([
      ['settled', { ...race('settled', T0 - 60 * MIN), status: 'Final', dividends: 'final' as const }],
      ['running', { ...race('running', T0 - 5 * MIN), status: 'Closed' }],
    ]);
    for (const r of races.values()) r.lastGoodAt = r.finishedAt = T0 - 30 * MIN;
    const plan = planBudget({ races: races.values(), now: T0, subscribers: new Map(), racesPerMinute: 60 });
    expect([...plan.intervalMs.keys()]).toEqual(['running']);
    expect([plan.nearJump, plan.nearJumpShare]).toEqual([1, 1]);
    expect(NEAR_JUMP_MS).toBe(10 * MIN);
  });

  it('predicts the intervals the scheduler gives when it runs at that rate', () => {
    // One request a second for four hours of the race clock, each race held at its distance from the start
    // so its phase holds; the last three hours are measured (intervals run to 20 minutes).
    const subscribers = new Map([['far-1', 1]]);
    const races = field(T0);
    const toStart = new Map([...races.values()].map((r) => [r.raceId, r.startTime - T0]));
    const fetches = new Map<string, number>();
    const hour = 60 * MIN;
    const measuredFor = 3 * hour;
    let racePicks = 0;
    for (let t = T0; t < T0 + 4 * hour; t += S) {
      for (const r of races.values()) r.startTime = t + (toStart.get(r.raceId) as number);
      const pick = pickNext({
        races: races.values(),
        now: t,
        inFlight: new Set(),
        subscribers,
        discoveryDueAt: Number.POSITIVE_INFINITY,
        discoveryInFlight: false,
        racePicks,
      });
      if (pick.kind !== 'race') continue;
      racePicks++;
      races.get(pick.raceId)!.lastFetchAt = t;
      if (t >= T0 + 4 * hour - measuredFor) fetches.set(pick.raceId, (fetches.get(pick.raceId) ?? 0) + 1);
    }
    const plan = planBudget({ races: races.values(), now: T0 + 4 * hour, subscribers, racesPerMinute: 60 });
    const measured = (cls: string) => {
      const ids = [...races.keys()].filter((id) => classOf(id) === cls && id !== 'far-1');
      return (ids.length * measuredFor) / ids.reduce((a, id) => a + (fetches.get(id) ?? 0), 0);
    };
    const planned = (cls: string) => plan.intervalMs.get(`${cls}-2`)!;
    for (const cls of ['near', 'warming', 'later', 'far']) {
      expect(
        Math.abs(measured(cls) / planned(cls) - 1),
        `${cls}: ${measured(cls)} vs ${planned(cls)}`,
      ).toBeLessThan(0.1);
    }
    expect(measuredFor / (fetches.get('far-1') ?? 0)).toBeCloseTo(plan.intervalMs.get('far-1')!, -3);
  });
});
