import { describe, expect, it } from 'vitest';
import { applyMeetings } from '../../src/watch/discovery.js';
import type { RaceWatch } from '../../src/watch/race-watch.js';
import { pickNext } from '../../src/watch/scheduler.js';
import { dividendsFinalAt, loadTimetable, runVirtualDay } from '../support/virtual-day.js';

const MIN = 60_000;
const meetings = loadTimetable();
const starts = meetings.flatMap((m) => m.races.map((r) => ({ id: r.id, start: Date.parse(r.start_time) })));
// The busiest stretch of the real day: 13 races within 10 minutes of each other around 17:56 UTC.
const from = Date.parse('2025-07-16T17:00:00Z');
const to = Date.parse('2025-07-16T19:00:00Z');
const day = runVirtualDay({ meetings, from, to, slotMs: 600, discoveryMs: 6000 });

function gapsWithin(raceId: string, lo: number, hi: number): number[] {
  const times = day.fetches.filter((f) => f.raceId === raceId && f.at >= lo && f.at <= hi).map((f) => f.at);
  return times.slice(1).map((t, i) => t - times[i]!);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

describe('scheduler over the real timetable at 100 requests a minute', () => {
  const nearJump = starts.filter((r) => r.start - 10 * MIN >= from + 20 * MIN && r.start <= to - 20 * MIN);

  it('fetches every race in its last 10 minutes at least every 25 s, and typically within 15 s', () => {
    expect(nearJump.length).toBeGreaterThan(30);
    const allGaps = nearJump.flatMap((r) => gapsWithin(r.id, r.start - 10 * MIN, r.start));
    expect(Math.max(...allGaps)).toBeLessThanOrEqual(25_000);
    expect(median(allGaps)).toBeLessThanOrEqual(15_000);
  });

  it('fetches races hours away at most every 20 minutes', () => {
    const far = starts.filter((r) => r.start - to > 3 * 60 * MIN);
    expect(far.length).toBeGreaterThan(100);
    for (const r of far) {
      for (const gap of gapsWithin(r.id, from, to)) expect(gap).toBeGreaterThanOrEqual(20 * MIN);
    }
  });

  it('spends more requests on a race near its jump than on one three hours out', () => {
    const perMinute = (raceId: string, lo: number, hi: number) =>
      day.fetches.filter((f) => f.raceId === raceId && f.at >= lo && f.at < hi).length / ((hi - lo) / MIN);
    const race = nearJump[0]!;
    const nearRate = perMinute(race.id, race.start - 10 * MIN, race.start);
    const farRace = starts.find((r) => r.start - to > 3 * 60 * MIN)!;
    expect(nearRate).toBeGreaterThan(50 * perMinute(farRace.id, from, to));
  });

  it('stops polling a race once a fetch has shown it Final with Final dividends', () => {
    const settledInWindow = starts.filter(
      (r) => dividendsFinalAt(r.start) > from && dividendsFinalAt(r.start) < to - MIN,
    );
    expect(settledInWindow.length).toBeGreaterThan(20);
    for (const r of settledInWindow) {
      const after = day.fetches.filter((f) => f.raceId === r.id && f.at >= dividendsFinalAt(r.start));
      expect(after.length).toBe(1);
    }
  });

  it('runs discovery on its interval and never more than one request per slot', () => {
    expect(day.discoveries.length).toBe((to - from) / 6000 - 1);
    const slots = new Set([...day.fetches.map((f) => f.at), ...day.discoveries]);
    expect(slots.size).toBe(day.fetches.length + day.discoveries.length);
  });
});

describe('pickNext', () => {
  const base = applyMeetings(new Map(), meetings.slice(0, 1), from).races;
  const input = (races: Map<string, RaceWatch>, now: number) => ({
    races: races.values(),
    now,
    inFlight: new Set<string>(),
    subscribers: new Map<string, number>(),
    discoveryDueAt: now + 1000,
    discoveryInFlight: false,
  });

  it('picks a race discovery marked dirty before any other', () => {
    const [a, b] = [...base.values()];
    const races = new Map(base);
    for (const r of races.values()) races.set(r.raceId, { ...r, lastFetchAt: from - 5 * MIN });
    races.set(b!.raceId, { ...b!, lastFetchAt: from, dirty: true });
    expect(a).toBeDefined();
    expect(pickNext(input(races, from + 1000))).toEqual({
      kind: 'race',
      raceId: b!.raceId,
      weight: expect.any(Number),
      urgent: true,
    });
  });

  it('never picks a race that is in flight', () => {
    const races = new Map([...base].slice(0, 1));
    const only = [...races.keys()][0]!;
    const pick = pickNext({ ...input(races, from), inFlight: new Set([only]) });
    expect(pick.kind).toBe('idle');
  });

  it('goes to discovery first when it is due', () => {
    expect(pickNext({ ...input(base, from), discoveryDueAt: from })).toEqual({ kind: 'discovery' });
  });

  it('says when to ask again when nothing is due', () => {
    const races = new Map<string, RaceWatch>();
    for (const r of base.values()) races.set(r.raceId, { ...r, lastFetchAt: from });
    const pick = pickNext({ ...input(races, from), discoveryDueAt: from + 6000 });
    expect(pick.kind).toBe('idle');
    if (pick.kind === 'idle') expect(pick.until).toBeGreaterThan(from);
  });

  it('chases the dividends of an Interim race harder than a race whose Interim dividends are in', () => {
    const [a, b] = [...base.values()];
    const interim = { startTime: from - 5 * MIN, status: 'Interim', lastFetchAt: from - 8_000 };
    const races = new Map([
      [a!.raceId, { ...a!, ...interim, dividends: 'interim' as const }],
      [b!.raceId, { ...b!, ...interim, dividends: 'none' as const }],
    ]);
    expect(pickNext(input(races, from))).toMatchObject({ kind: 'race', raceId: b!.raceId, weight: 8 });
  });

  it('fetches a subscribed race an hour out once it is 10 s old, ahead of a staler near-jump race', () => {
    const [a, b] = [...base.values()];
    const near = { ...a!, startTime: from + 5 * MIN, lastFetchAt: from - 60_000 };
    const subscribed = { ...b!, startTime: from + 50 * MIN };
    const subscribers = new Map([[b!.raceId, 1]]);
    const at = (lastFetchAt: number) =>
      pickNext({
        ...input(
          new Map([
            [a!.raceId, near],
            [b!.raceId, { ...subscribed, lastFetchAt }],
          ]),
          from,
        ),
        subscribers,
      });
    expect(at(from - 9_999)).toMatchObject({ kind: 'race', raceId: a!.raceId });
    expect(at(from - 10_000)).toMatchObject({ kind: 'race', raceId: b!.raceId, urgent: false });
  });

  it('raises a subscribed race above an unsubscribed one in the same phase', () => {
    const [a, b] = [...base.values()];
    const races = new Map([
      [a!.raceId, { ...a!, startTime: from + 20 * MIN, lastFetchAt: from - 20_000 }],
      [b!.raceId, { ...b!, startTime: from + 20 * MIN, lastFetchAt: from - 20_000 }],
    ]);
    const subscribers = new Map([[b!.raceId, 1]]);
    expect(pickNext({ ...input(races, from), subscribers })).toMatchObject({
      kind: 'race',
      raceId: b!.raceId,
    });
  });
});
