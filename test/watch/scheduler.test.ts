import { describe, expect, it } from 'vitest';
import { applyMeetings } from '../../src/watch/schedule/discovery.js';
import { PEAK_RACES, TROUGH_RACES } from '../../src/watch/schedule/peak.js';
import {
  DEFAULT_SETTINGS,
  FAR_SCRATCHING_SHARE,
  type FreshnessSettings,
} from '../../src/watch/schedule/poll-policy.js';
import { isFarTurn, isShareTurn, pickNext, usesTurn } from '../../src/watch/schedule/scheduler.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';
import { dividendsFinalAt, loadTimetable, modelStatus, runVirtualDay } from '../support/virtual-day.js';

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

  it('fetches every race in its last 10 minutes at least every 40 s, and typically within 15 s', () => {
    expect(nearJump.length).toBeGreaterThan(30);
    const allGaps = nearJump.flatMap((r) => gapsWithin(r.id, r.start - 10 * MIN, r.start));
    expect(Math.max(...allGaps)).toBeLessThanOrEqual(40_000);
    expect(median(allGaps)).toBeLessThanOrEqual(15_000);
  });

  it('fetches a race hours away at most every 10 minutes (a scratching there is that rare)', () => {
    const far = starts.filter((r) => r.start - to > 3 * 60 * MIN);
    expect(far.length).toBeGreaterThan(100);
    for (const r of far) {
      for (const gap of gapsWithin(r.id, from, to)) expect(gap).toBeGreaterThanOrEqual(9 * MIN);
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

  it('lets a due listing wait for a race near its jump with no document until discoveryLatestAt, and only for it', () => {
    const now = from;
    const fetched = new Map<string, RaceWatch>();
    for (const r of base.values()) fetched.set(r.raceId, { ...r, lastFetchAt: now });
    const [jumping] = [...base.values()];
    const races = new Map(fetched);
    races.set(jumping!.raceId, {
      ...jumping!,
      startTime: now + 5 * MIN,
      status: 'Open',
      lastFetchAt: undefined,
    });
    const listing = { discoveryDueAt: now - 1_000, discoveryLatestAt: now + 2_000 };
    // A term's first seconds: the race at its jump before a listing of a day listed 4 s ago (3 s cadence).
    expect(pickNext({ ...input(races, now), ...listing })).toMatchObject({
      kind: 'race',
      raceId: jumping!.raceId,
    });
    // One more interval on, the listing goes first again.
    expect(pickNext({ ...input(races, now), ...listing, discoveryLatestAt: now })).toEqual({
      kind: 'discovery',
    });
    // Nothing near its jump without a document: the due listing goes before every other pick, as before.
    expect(pickNext({ ...input(fetched, now), ...listing })).toEqual({ kind: 'discovery' });
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
    expect(pickNext(input(races, from))).toMatchObject({ kind: 'race', raceId: b!.raceId });
  });

  it('fetches a subscribed race an hour out once it is 10 s old, ahead of a staler near-jump race', () => {
    const [a, b] = [...base.values()];
    const near = { ...a!, status: 'Open', startTime: from + 5 * MIN, lastFetchAt: from - 60_000 };
    const subscribed = { ...b!, status: 'Open', startTime: from + 50 * MIN };
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
      [a!.raceId, { ...a!, status: 'Open', startTime: from + 20 * MIN, lastFetchAt: from - 20_000 }],
      [b!.raceId, { ...b!, status: 'Open', startTime: from + 20 * MIN, lastFetchAt: from - 20_000 }],
    ]);
    const subscribers = new Map([[b!.raceId, 1]]);
    expect(pickNext({ ...input(races, from), subscribers })).toMatchObject({
      kind: 'race',
      raceId: b!.raceId,
    });
  });
});

describe('pickNext: value per request', () => {
  const base = [...applyMeetings(new Map(), meetings.slice(0, 1), from).races.values()];
  const [a, b, c] = base as [RaceWatch, RaceWatch, RaceWatch];
  const pick = (races: RaceWatch[], now = from, settings?: FreshnessSettings, racePicks?: number) =>
    pickNext(
      {
        races,
        now,
        inFlight: new Set(),
        subscribers: new Map(),
        discoveryDueAt: now + 6000,
        discoveryInFlight: false,
        racePicks,
      },
      settings,
    );
  const fetched = (race: RaceWatch, patch: Partial<RaceWatch>) => ({
    ...race,
    lastFetchAt: from - 10_000,
    lastGoodAt: from - 10_000,
    status: 'Open',
    finishedAt: undefined,
    ...patch,
  });

  it('follows the status, not the advertised start: Open 8 minutes late is still near its jump, Closed is not', () => {
    const late = fetched(a, { startTime: from - 8 * MIN, status: 'Open' });
    const warming = fetched(b, { startTime: from + 20 * MIN, status: 'Open' });
    expect(pick([late, warming])).toMatchObject({ kind: 'race', raceId: a.raceId });
    const closed = { ...late, status: 'Closed' };
    // Closed: odds no longer move; what is left is its results, worth less than an Open race 5 min out.
    const near = fetched(b, { startTime: from + 5 * MIN, status: 'Open' });
    expect(pick([closed, near])).toMatchObject({ kind: 'race', raceId: b.raceId });
  });

  it('leaves a Closed race to discovery, even with the budget to spare: its results come with Interim, which the listing shows', () => {
    const closed = fetched(a, { startTime: from - 3 * MIN, status: 'Closed' });
    expect(pick([closed])).toEqual({ kind: 'idle', until: from + 6000 });
    expect(pick([{ ...closed, dirty: true }])).toMatchObject({ raceId: a.raceId, urgent: true });
  });

  it('keeps fetching a Final race whose last document left a claim held (a Final after an upheld protest) until it is confirmed', () => {
    const over = fetched(a, {
      startTime: from - 20 * MIN,
      status: 'Final',
      dividends: 'final',
      finishedAt: from - 60_000,
      lastGoodAt: from - 10_000,
    });
    // Confirmed and settled: nothing more to fetch.
    expect(pick([over])).toEqual({ kind: 'idle', until: from + 6000 });
    // Held: fetched again (before, it was settled and the held Final and placings never went out).
    expect(pick([{ ...over, pending: true }])).toMatchObject({
      kind: 'race',
      raceId: a.raceId,
      urgent: false,
    });
    // Interim with its dividends, a claim held: fetched before a race 50 minutes out (at the dividends' rate).
    const interim = fetched(a, { startTime: from - 20 * MIN, status: 'Interim', dividends: 'interim' });
    const hourOut = fetched(b, { startTime: from + 50 * MIN });
    expect(pick([hourOut, { ...interim, pending: true }])).toMatchObject({ raceId: a.raceId });
  });

  it('skips a race once over only from the instant it was found over, and only that race value', () => {
    // Final, confirmed, no Final dividends: over once SETTLE_TIMEOUT_MS (30 minutes) after it finished.
    const final = fetched(a, {
      startTime: from - 20 * MIN,
      status: 'Final',
      dividends: 'interim',
      finishedAt: from - MIN,
      discoveredAt: from - 60 * MIN,
      lastFetchAt: from - 10 * MIN,
      lastGoodAt: from - 10_000,
    });
    const later = from + 40 * MIN;
    expect(pick([final], later)).toEqual({ kind: 'idle', until: later + 6000 });
    // The same value asked about earlier (a caller on another clock) is not over then.
    expect(pick([final], from)).toMatchObject({ kind: 'race', raceId: a.raceId });
    // A new value of the race (a held claim after a protest) is looked at afresh.
    expect(pick([{ ...final, pending: true }], later)).toMatchObject({ kind: 'race', raceId: a.raceId });
  });

  it('prefers, at equal staleness, the race whose changes are worth more: near the jump over an hour out', () => {
    const near = fetched(a, { startTime: from + 3 * MIN });
    const hourOut = fetched(b, { startTime: from + 50 * MIN });
    expect(pick([hourOut, near])).toMatchObject({ kind: 'race', raceId: a.raceId });
  });

  it('gives a staler race its turn: a race 20 minutes out fetched 5 minutes ago before one near the jump fetched 3 s ago, on a late-scratching turn', () => {
    const near = fetched(a, { startTime: from + 3 * MIN, lastFetchAt: from - 3_000 });
    const warming = fetched(b, { startTime: from + 20 * MIN, lastFetchAt: from - 5 * MIN });
    expect(pick([near, warming], from, DEFAULT_SETTINGS, 3)).toMatchObject({
      kind: 'race',
      raceId: b.raceId,
    });
  });

  it('gives the early-scratching slice exactly its share of race picks, evenly spread', () => {
    for (const share of [0.01, 0.12, 0.25, 0.5]) {
      const turns = Array.from({ length: 1000 }, (_, n) => n).filter((n) => isShareTurn(n, share));
      expect(turns.length).toBe(Math.round(1000 * share));
      const gaps = turns.slice(1).map((t, i) => t - turns[i]!);
      expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(1);
    }
  });

  it('on an early-scratching turn, fetches the race 1-3 h out that waited 18 minutes, not the race at its jump', () => {
    const near = fetched(a, { startTime: from + 5 * MIN, lastFetchAt: from - 10_000 });
    const band = fetched(b, { startTime: from + 2 * 60 * MIN, lastFetchAt: from - 18 * MIN });
    const far = fetched(c, { startTime: from + 20 * 60 * MIN, lastFetchAt: from - 3 * 60 * MIN });
    // Another race 1-3 h out fetched a second ago: the band's paced turn is 9 minutes away.
    const other = fetched(
      { ...b, raceId: 'other' },
      { startTime: from + 90 * MIN, lastFetchAt: from - 1_000 },
    );
    const turn = [...Array(20).keys()].find((n) => isShareTurn(n, DEFAULT_SETTINGS.earlyScratchingShare))!;
    expect(pick([near, band, far, other], from, DEFAULT_SETTINGS, turn)).toMatchObject({ raceId: b.raceId });
    expect(pick([near, band, far, other], from, DEFAULT_SETTINGS, turn + 1)).toMatchObject({
      raceId: a.raceId,
    });
    // Within the band's maximum age nothing is due there: the turn goes to the race at its jump, not to the
    // race further out that waited longest (that one has turns of its own, FAR_SCRATCHING_SHARE).
    const fresh = { ...band, lastFetchAt: from - 18 * MIN + 1 };
    expect(pick([near, fresh, far, other], from, DEFAULT_SETTINGS, turn)).toMatchObject({ raceId: a.raceId });
  });

  it('gives the races more than 3 h out one race pick in 100, never fetched first, and no early-scratching turn (issue 26)', () => {
    const near = fetched(a, { startTime: from + 5 * MIN, lastFetchAt: from - 10_000 });
    const visited = fetched(b, { startTime: from + 20 * 60 * MIN, lastFetchAt: from - 10 * 60 * MIN });
    const never = fetched(c, {
      startTime: from + 30 * 60 * MIN,
      lastFetchAt: undefined,
      lastGoodAt: undefined,
    });
    const picks = Array.from({ length: 1000 }, (_, n) => n + 1);
    const farTurns = picks.filter((n) => {
      const p = pick([near, visited], from, DEFAULT_SETTINGS, n);
      return p.kind === 'race' && p.raceId === b.raceId;
    });
    expect(farTurns.length).toBe(1000 * FAR_SCRATCHING_SHARE);
    // Never on an early-scratching turn: the race 1-3 h out due then keeps it.
    expect(farTurns.some((n) => isShareTurn(n, DEFAULT_SETTINGS.earlyScratchingShare))).toBe(false);
    expect(pick([near, visited, never], from, DEFAULT_SETTINGS, farTurns[0])).toMatchObject({
      raceId: c.raceId,
    });
  });

  it('on an early-scratching turn, fetches a race 1-3 h out 18 minutes after its last fetch before a race never fetched that just entered the band (issue 26)', () => {
    const turn = [...Array(20).keys()].find((n) => isShareTurn(n, DEFAULT_SETTINGS.earlyScratchingShare))!;
    const band = fetched(b, { startTime: from + 71 * MIN, lastFetchAt: from - 18 * MIN });
    // Listed an hour ago, never fetched, 3 h from its start since a minute: its 18 minutes in the band run on.
    const entering = fetched(c, {
      discoveredAt: from - 60 * MIN,
      startTime: from + 179 * MIN,
      lastFetchAt: undefined,
      lastGoodAt: undefined,
    });
    expect(pick([band, entering], from, DEFAULT_SETTINGS, turn)).toMatchObject({ raceId: b.raceId });
    // With nothing overdue, a race never fetched in the band is due: its first fetch is the baseline.
    const fresh = { ...band, lastFetchAt: from - 10 * MIN };
    const farNever = {
      ...entering,
      raceId: 'far',
      startTime: from + 10 * 60 * MIN,
      discoveredAt: from - 90 * MIN,
    };
    expect(pick([fresh, farNever, entering], from, DEFAULT_SETTINGS, turn)).toMatchObject({
      raceId: c.raceId,
    });
    // Once in the band 18 minutes and still never fetched, it is the more overdue.
    const overdue = { ...entering, startTime: from + 161 * MIN };
    expect(pick([band, overdue], from + MIN, DEFAULT_SETTINGS, turn)).toMatchObject({ raceId: c.raceId });
  });

  it('keeps the early-scratching turn for the next pick when a dirty race goes first', () => {
    const near = fetched(a, { startTime: from + 5 * MIN, lastFetchAt: from - 10_000 });
    const band = fetched(b, { startTime: from + 2 * 60 * MIN, lastFetchAt: from - 30 * MIN });
    const dirty = fetched(c, {
      startTime: from - 2 * MIN,
      status: 'Closed',
      lastFetchAt: from - 5_000,
      dirty: true,
    });
    const turn = [...Array(20).keys()].find((n) => isShareTurn(n, DEFAULT_SETTINGS.earlyScratchingShare))!;
    const first = pick([near, band, dirty], from, DEFAULT_SETTINGS, turn);
    expect(first).toMatchObject({ raceId: c.raceId, urgent: true });
    expect(usesTurn(first, turn)).toBe(false);
    // Still the same turn: the race 1-3 h out gets it.
    expect(pick([near, band, { ...dirty, dirty: false }], from, DEFAULT_SETTINGS, turn)).toMatchObject({
      raceId: b.raceId,
    });
    expect(usesTurn(pick([near], from, DEFAULT_SETTINGS, turn + 1), turn + 1)).toBe(true);
  });

  it('remembers when discovery first listed a race Interim, the time its dividends are due from', () => {
    const listed = (status: string) =>
      meetings.slice(0, 1).map((m) => ({ ...m, races: m.races.map((r) => ({ ...r, status })) }));
    const open = applyMeetings(new Map(), listed('Open'), from).races;
    const interim = applyMeetings(open, listed('Interim'), from + 6_000).races;
    const again = applyMeetings(interim, listed('Interim'), from + 12_000).races;
    const id = [...open.keys()][0]!;
    expect(open.get(id)?.interimAt).toBeUndefined();
    expect(interim.get(id)?.interimAt).toBe(from + 6_000);
    expect(again.get(id)?.interimAt).toBe(from + 6_000);
    expect(applyMeetings(new Map(), listed('Interim'), from).races.get(id)?.interimAt).toBe(from);
  });

  it('fetches an Interim race every 7 s from 21 s to 90 s after it was seen Interim until its dividends are in, ahead of a race at its jump, on no turn (issue 26)', () => {
    const atJump = fetched(a, { startTime: from - MIN, lastFetchAt: from - 20_000 });
    const interim = (interimAt: number, lastFetchAt: number, dividends: 'none' | 'interim' = 'none') =>
      fetched(b, { startTime: from - 5 * MIN, status: 'Interim', interimAt, lastFetchAt, dividends });
    // Dividends come 20-60 s after Interim, listed up to 6 s late: from 14 s after it was listed, and the first
    // look is one interval (7 s) into that, 7 s since a look.
    const due = pick([atJump, interim(from - 21_000, from - 7_000)]);
    expect(due).toMatchObject({ raceId: b.raceId, urgent: false, deadline: true });
    expect(usesTurn(due, 0)).toBe(false);
    expect(pick([atJump, interim(from - 30_000, from - 7_000)])).toMatchObject({
      raceId: b.raceId,
      deadline: true,
    });
    // Not 7 s into the window, looked at within 7 s, past the window, or its dividends in: the race at its jump.
    for (const race of [
      interim(from - 20_999, from - 12_000),
      interim(from - 30_000, from - 6_999),
      interim(from - 90_001, from - 5_000),
      interim(from - 30_000, from - 5_000, 'interim'),
    ])
      expect(pick([atJump, race])).toMatchObject({ raceId: a.raceId });
    // Its dividends in, it is still polled (for a protest lodged), below the race at its jump.
    const protest = interim(from - 5 * MIN, from - 5 * MIN, 'interim');
    expect(pick([protest])).toMatchObject({ raceId: b.raceId, urgent: false });
  });

  it('leaves an Interim race’s dividends to their deadline until its window ends: nothing to see in the 14 s after its Interim was listed (issue 26)', () => {
    // A race an hour out, past its minimum interval and nothing else: taken whenever nothing is worth more.
    const hourOut = fetched(a, { startTime: from + 50 * MIN, lastFetchAt: from - 60_000 });
    const interim = (interimAt: number) =>
      fetched(b, { startTime: from - 5 * MIN, status: 'Interim', interimAt, lastFetchAt: from - 12_000 });
    // Fetched at its Interim 12 s ago: before the window, worth nothing (the race an hour out goes first); in
    // its window, until the deadline's first look 21 s after it was listed.
    expect(pick([hourOut, interim(from - 13_999)])).toMatchObject({ raceId: a.raceId });
    expect(pick([hourOut, interim(from - 20_999)])).toMatchObject({ raceId: a.raceId });
    expect(pick([hourOut, interim(from - 21_000)])).toMatchObject({ raceId: b.raceId, deadline: true });
    // Past its window (dividends later than modelled), the score at the dividends' rate.
    // A race whose fetches fail keeps its back-off (2^3 s after three failures), then the score.
    const failing = { ...interim(from - 30_000), lastFetchAt: from - 7_999, failures: 3 };
    expect(pick([hourOut, failing])).toMatchObject({ raceId: a.raceId });
    expect(pick([hourOut, { ...failing, lastFetchAt: from - 8_000 }])).toMatchObject({ raceId: b.raceId });
    const late = pick([hourOut, interim(from - 90_001)]);
    expect(late).toMatchObject({ raceId: b.raceId });
    expect(late).not.toHaveProperty('deadline');
  });

  it('fetches an Open race within the hour once 225 s old, ahead of the races at their jump (late scratchings)', () => {
    const near = fetched(a, { startTime: from + 2 * MIN, lastFetchAt: from - 20_000 });
    const late = fetched(b, { startTime: from + 40 * MIN, lastFetchAt: from - 224_999 });
    // Another race within the hour fetched a second ago: the slice's paced turn is 112.5 s away.
    const other = fetched(c, { startTime: from + 30 * MIN, lastFetchAt: from - 1_000 });
    const turn = 3; // isShareTurn(3, 1/4): one race pick in four may go to a late-scratching deadline
    expect(pick([near, late, other], from, DEFAULT_SETTINGS, turn)).toMatchObject({ raceId: a.raceId });
    const due = { ...late, lastFetchAt: from - 225_000 };
    expect(pick([near, due, other], from, DEFAULT_SETTINGS, turn)).toMatchObject({ raceId: b.raceId });
    expect(pick([near, due, other], from, DEFAULT_SETTINGS, turn + 1)).toMatchObject({ raceId: a.raceId });
  });

  it('fetches the races within the hour at an even pace, one of N every 225 s / (N + 1), whatever the share turns (issue 26)', () => {
    // Twelve races 10-60 minutes out, last fetched in a clump; ten races at their jump take every other slot.
    const near = Array.from({ length: 10 }, (_, i) =>
      fetched({ ...a, raceId: `near-${i}` }, { startTime: from + 9 * MIN }),
    );
    const late = Array.from({ length: 12 }, (_, i) =>
      fetched(
        { ...b, raceId: `late-${i}` },
        { startTime: from + (30 + 2 * i) * MIN, lastFetchAt: from - i * 500 },
      ),
    );
    const races = new Map([...near, ...late].map((r) => [r.raceId, r]));
    const lateFetches: { raceId: string; at: number }[] = [];
    for (let t = from, n = 0; t < from + 8 * MIN; t += 600, n++) {
      const p = pick([...races.values()], t, DEFAULT_SETTINGS, n);
      if (p.kind !== 'race') continue;
      races.set(p.raceId, { ...races.get(p.raceId)!, lastFetchAt: t });
      if (p.raceId.startsWith('late')) lateFetches.push({ raceId: p.raceId, at: t });
    }
    const gaps = lateFetches.slice(1).map((f, i) => f.at - lateFetches[i]!.at);
    // 225 s / 13 = 17.3 s between two of them (to the 600 ms slot), never two at once as the clump fell due.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(225_000 / 13);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(225_000 / 13 + 600);
    // Each race within 225 s: the oldest first.
    for (const r of late) {
      const at = lateFetches.filter((f) => f.raceId === r.raceId).map((f) => f.at);
      const intervals = at.slice(1).map((x, i) => x - at[i]!);
      expect(Math.max(...intervals)).toBeLessThanOrEqual(225_000);
    }
  });

  describe('around a peak of races near their jump (peak.ts)', () => {
    // PEAK_RACES races within 10 minutes of their start from `from + 5 min`: a peak begins then.
    const peak = (at: number) =>
      Array.from({ length: PEAK_RACES }, (_, i) =>
        fetched({ ...a, raceId: `peak-${i}` }, { startTime: at + 10 * MIN, lastFetchAt: from - 5_000 }),
      );
    const earlyTurn = [...Array(20).keys()].find((n) =>
      isShareTurn(n, DEFAULT_SETTINGS.earlyScratchingShare),
    )!;
    const routine = [...Array(20).keys()].find(
      (n) =>
        !isShareTurn(n, DEFAULT_SETTINGS.earlyScratchingShare) &&
        !isShareTurn(n, FAR_SCRATCHING_SHARE) &&
        !isShareTurn(n, 0.25),
    )!;
    const bandAged = (ms: number) => fetched(b, { startTime: from + 2 * 60 * MIN, lastFetchAt: from - ms });
    /** Another race 1-3 h out fetched a second ago: the band's paced turn is minutes away. */
    const otherInBand = () =>
      fetched({ ...b, raceId: 'other' }, { startTime: from + 90 * MIN, lastFetchAt: from - 1_000 });
    /** A race 5 minutes from its start fetched 10 s ago: what the score takes when the band does not. */
    const nearOne = () =>
      fetched({ ...a, raceId: 'near' }, { startTime: from + 5 * MIN, lastFetchAt: from - 10_000 });

    it('in a peak, leaves a race 1-3 h out until 19 minutes old, then takes it on any pick (issue 26)', () => {
      const races = peak(from);
      // 18 minutes old: due on an early-scratching turn out of a peak, not in one.
      expect(pick([...races.slice(1), bandAged(18 * MIN)], from, DEFAULT_SETTINGS, earlyTurn)).toMatchObject({
        raceId: b.raceId,
      });
      expect(pick([...races, bandAged(18 * MIN)], from, DEFAULT_SETTINGS, earlyTurn)).toMatchObject({
        raceId: 'peak-0',
      });
      // 19 minutes old (the goal is 20): taken on a routine pick too.
      expect(pick([...races, bandAged(19 * MIN)], from, DEFAULT_SETTINGS, routine)).toMatchObject({
        raceId: b.raceId,
      });
    });

    it('before a peak and in a trough, visits a race 1-3 h out that would fall due in it, from 8 minutes before it (issue 26)', () => {
      // The peak begins in 5 minutes; a race 10 minutes old would fall due 3 minutes into it. Another race
      // 1-3 h out fetched a second ago: the band's paced turn is minutes away.
      const other = otherInBand();
      const near = nearOne();
      const races = [...peak(from + 5 * MIN), other, near];
      expect(pick([...races, bandAged(10 * MIN)], from, DEFAULT_SETTINGS, earlyTurn)).toMatchObject({
        raceId: b.raceId,
      });
      // Not before it has waited half its maximum age, nor when no peak comes before it falls due.
      expect(pick([...races, bandAged(8 * MIN)], from, DEFAULT_SETTINGS, earlyTurn)).toMatchObject({
        raceId: 'near',
      });
      expect(
        pick([...peak(from + 9 * MIN), other, near, bandAged(10 * MIN)], from, DEFAULT_SETTINGS, earlyTurn),
      ).toMatchObject({
        raceId: 'near',
      });
      // Nor while more than TROUGH_RACES races are near their jump already: that is no trough to work in.
      const busy = Array.from({ length: TROUGH_RACES }, (_, n) =>
        fetched({ ...a, raceId: `busy-${n}` }, { startTime: from + 5 * MIN, lastFetchAt: from - 5_000 }),
      );
      expect(pick([...races, ...busy, bandAged(10 * MIN)], from, DEFAULT_SETTINGS, earlyTurn)).toMatchObject({
        raceId: 'near',
      });
      expect(
        pick([...races, ...busy.slice(1), bandAged(10 * MIN)], from, DEFAULT_SETTINGS, earlyTurn),
      ).toMatchObject({
        raceId: b.raceId,
      });
    });

    it('working ahead of a peak, gives the band the late-scratching turns the races within the hour leave (issue 26)', () => {
      const other = otherInBand();
      const near = nearOne();
      const lateTurn = 3; // isShareTurn(3, 1/4), and no early-scratching turn
      expect(isShareTurn(lateTurn, DEFAULT_SETTINGS.earlyScratchingShare)).toBe(false);
      // The peak's races are 15 minutes out, fetched 5 s ago: none of the races within the hour is due.
      const races = [...peak(from + 5 * MIN), other, near];
      expect(pick([...races, bandAged(10 * MIN)], from, DEFAULT_SETTINGS, lateTurn)).toMatchObject({
        raceId: b.raceId,
      });
      // A race within the hour past its deadline keeps its turn; and no peak ahead, no extra turn.
      const due = fetched(
        { ...c, raceId: 'due' },
        { startTime: from + 40 * MIN, lastFetchAt: from - 225_000 },
      );
      expect(pick([...races, due, bandAged(10 * MIN)], from, DEFAULT_SETTINGS, lateTurn)).toMatchObject({
        raceId: 'due',
      });
      expect(
        pick([...peak(from + 9 * MIN), other, near, bandAged(10 * MIN)], from, DEFAULT_SETTINGS, lateTurn),
      ).toMatchObject({ raceId: 'near' });
    });

    it('out of a peak too, takes a race 1-3 h out at its latest age (19 minutes) on any pick (issue 26)', () => {
      const near = nearOne();
      // Another race 1-3 h out fetched a second ago: the band's paced turn is minutes away.
      const other = otherInBand();
      expect(pick([near, other, bandAged(19 * MIN - 1)], from, DEFAULT_SETTINGS, routine)).toMatchObject({
        raceId: 'near',
      });
      expect(pick([near, other, bandAged(19 * MIN)], from, DEFAULT_SETTINGS, routine)).toMatchObject({
        raceId: b.raceId,
      });
    });

    it('counts a race 1-3 h out never fetched from when it was listed, so a takeover does not put the band before the races watched', () => {
      // A new leader has fetched nothing: every race in the band entered it long ago. Counted from then, each
      // was "at its latest age" and took every pick before a subscribed race (issue 27's nemesis: its two
      // subscribed races went unfetched for minutes after each takeover).
      const watched = fetched(
        { ...a, raceId: 'watched' },
        { startTime: from + 40 * MIN, lastFetchAt: from - 15_000 },
      );
      const unseen = { ...b, status: 'Open', startTime: from + 2 * 60 * MIN, discoveredAt: from - 1_000 };
      const input = (races: RaceWatch[]) => ({
        races,
        now: from,
        inFlight: new Set<string>(),
        subscribers: new Map([['watched', 1]]),
        discoveryDueAt: from + 6000,
        discoveryInFlight: false,
        racePicks: routine,
      });
      expect(pickNext(input([watched, unseen]))).toMatchObject({ raceId: 'watched' });
      // Listed 19 minutes ago and still never fetched: at its latest age, on any pick.
      expect(pickNext(input([watched, { ...unseen, discoveredAt: from - 19 * MIN }]))).toMatchObject({
        raceId: b.raceId,
      });
    });

    it('gives no turn to the races more than 3 h out in a peak (issue 26)', () => {
      const far = fetched(c, { startTime: from + 20 * 60 * MIN, lastFetchAt: from - 10 * 60 * MIN });
      const farTurn = Array.from({ length: 300 }, (_, n) => n).find((n) =>
        isFarTurn(n, DEFAULT_SETTINGS.earlyScratchingShare),
      )!;
      const races = peak(from);
      expect(pick([...races.slice(1), far], from, DEFAULT_SETTINGS, farTurn)).toMatchObject({
        raceId: c.raceId,
      });
      expect(pick([...races, far], from, DEFAULT_SETTINGS, farTurn)).toMatchObject({ raceId: 'peak-0' });
    });
  });

  it('gives a race entering the hour never fetched its first fetch at once, whatever the early share (issue 26)', () => {
    // Before the slices, at scratching value 0 such a race had weight 0 and never won a pick under a
    // saturated budget: its late scratchings and an abandonment went into its first document, unseen.
    const near = fetched(a, { startTime: from + 2 * MIN, lastFetchAt: from - 20_000 });
    const unseen = { ...b, status: 'Open', startTime: from + 59 * MIN, discoveredAt: from - 3 * 60 * MIN };
    const settings = { ...DEFAULT_SETTINGS, earlyScratchingShare: 0.01 };
    expect(pick([near, unseen], from, settings, 3)).toMatchObject({ raceId: b.raceId });
  });

  it('weighs a race at or past its advertised start 1.5 times: its jump and most of its moves are due (issue 26)', () => {
    const past = fetched(b, { startTime: from - 30_000, lastFetchAt: from - 6_000 });
    // 1.5 x 6^2 = 54 against 8^2 = 64: the race before its start fetched 8 s ago goes first (at x2, 72, it did not).
    const before = fetched(a, { startTime: from + 30_000, lastFetchAt: from - 8_000 });
    expect(pick([before, past])).toMatchObject({ raceId: a.raceId });
    // Fetched 7.2 s ago (51.84 < 54), it waits for the race past its start.
    expect(pick([{ ...before, lastFetchAt: from - 7_200 }, past])).toMatchObject({ raceId: b.raceId });
  });

  it('weighs a race more than 6 minutes before its advertised start 0.8 times: few of its moves are due (issue 26)', () => {
    // 3 minutes out every jump still possible is within 10 minutes: the mean rate, 6^2 = 36.
    const soon = fetched(b, { startTime: from + 3 * MIN, lastFetchAt: from - 6_000 });
    // 8 minutes out 45 of the 54 delays elsewhere put the jump within 10 minutes: 0.83 x 7^2 = 40.8 goes first
    // at x1, and waits at x0.8 (32.7).
    const early = fetched(a, { startTime: from + 8 * MIN, lastFetchAt: from - 7_000 });
    expect(pick([early, soon])).toMatchObject({ raceId: b.raceId });
    // 6 minutes out (x1, 0.9 of the mean) it goes first.
    expect(pick([{ ...early, startTime: from + 6 * MIN }, soon])).toMatchObject({ raceId: a.raceId });
  });

  it('never fetches a race hours away sooner than its minimum interval, even with nothing else to do', () => {
    const far = fetched(a, { startTime: from + 20 * 60 * MIN, lastFetchAt: from - 5 * MIN });
    const pick1 = pick([far]);
    expect(pick1.kind).toBe('idle');
    expect(pick(base.slice(0, 0))).toEqual({ kind: 'idle', until: from + 6000 });
  });

  it('fetches a race already Final when listed only when no race with something to see is due', () => {
    const over = { ...a, status: 'Final', finishedAt: from - MIN, discoveredAt: from - MIN };
    const far = fetched(b, { startTime: from + 20 * 60 * MIN, lastFetchAt: from - 3 * 60 * MIN });
    expect(pick([over, far])).toMatchObject({ raceId: b.raceId });
    expect(pick([over, { ...far, lastFetchAt: from - MIN }])).toMatchObject({ raceId: a.raceId });
  });

  it('still puts a dirty race before every scored one', () => {
    const near = fetched(a, { startTime: from + MIN, lastFetchAt: from - 60_000 });
    const dirty = fetched(c, { startTime: from + 5 * 60 * MIN, lastFetchAt: from - 1_000, dirty: true });
    expect(pick([near, dirty])).toMatchObject({ raceId: c.raceId, urgent: true });
  });

  it('puts a race near its jump with no document before a refill turn, not one already fetched', () => {
    const unknown = { ...a, status: 'Open', startTime: from + 5 * MIN, discoveredAt: from };
    const final = { ...b, status: 'Final', finishedAt: from - 60 * MIN, discoveredAt: from - 10 * MIN };
    const input = {
      now: from,
      inFlight: new Set<string>(),
      subscribers: new Map([
        [unknown.raceId, 1],
        [final.raceId, 1],
      ]),
      discoveryDueAt: from + 6000,
      discoveryInFlight: false,
      racePicks: 4, // a refill turn
    };
    expect(pickNext({ ...input, races: [unknown, final] })).toMatchObject({ raceId: unknown.raceId });
    const known = { ...unknown, lastFetchAt: from - 1_000 };
    expect(pickNext({ ...input, races: [known, final] })).toMatchObject({
      raceId: final.raceId,
      urgent: true,
    });
  });
});

describe('among races near their jump with no document', () => {
  const from = Date.parse('2025-07-16T18:00:00Z');
  const race = (raceId: string, startTime: number): RaceWatch =>
    ({ raceId, meetingId: 'm', status: 'Open', startTime, discoveredAt: from }) as RaceWatch;
  const input = (races: RaceWatch[]) => ({
    now: from,
    inFlight: new Set<string>(),
    subscribers: new Map<string, number>(),
    discoveryDueAt: from + 6000,
    discoveryInFlight: false,
    racePicks: 0,
    races,
  });

  it('fetches the one whose jump comes soonest first: 3 minutes late before 2 and 8 minutes to go', () => {
    const late = race('late', from - 3 * MIN);
    const soon = race('soon', from + 2 * MIN);
    const later = race('later', from + 8 * MIN);
    expect(pickNext(input([later, soon, late]))).toMatchObject({ raceId: 'late' });
    expect(pickNext(input([later, soon]))).toMatchObject({ raceId: 'soon' });
  });
});

describe('after a takeover or a wiped store, with 200 subscribed races and no document of any', () => {
  // The busiest stretch: 18 races within 10 minutes of 18:00 UTC, 70 already Final.
  const at = Date.parse('2025-07-16T18:00:00Z');
  const subscribed = [...starts]
    .sort((x, y) => Math.abs(x.start - at) - Math.abs(y.start - at))
    .slice(0, 200);
  const restart = runVirtualDay({
    meetings,
    from: at,
    to: at + 20 * MIN,
    slotMs: 600,
    discoveryMs: 6000,
    subscribers: new Map(subscribed.map((r) => [r.id, 1])),
  });
  const firstFetch = (raceId: string) => restart.fetches.find((f) => f.raceId === raceId)?.at;

  it('fetches every race within 10 minutes of its jump, and not Final, first: all 17 within 11 s', () => {
    const nearJump = subscribed.filter(
      (r) => Math.abs(r.start - at) <= 10 * MIN && modelStatus(r.start, at) !== 'Final',
    );
    expect(nearJump.length).toBe(17);
    // 17 fetches at one request a 600 ms slot, and a discovery: 10.2 s (measured: 18.6 s when refill and
    // share turns went first). Issue 27 asks for 30 s.
    for (const r of nearJump) expect(firstFetch(r.id)! - at, r.id).toBeLessThanOrEqual(11_000);
    const lastNear = Math.max(...nearJump.map((r) => firstFetch(r.id)!));
    const near = new Set(nearJump.map((r) => r.id));
    const others = restart.fetches.filter((f) => f.at <= lastNear && !near.has(f.raceId));
    expect(others).toEqual([]);
  });

  it('refills the document of every subscribed race, Final ones included, on its refill turns', () => {
    const finals = subscribed.filter((r) => modelStatus(r.start, at) === 'Final');
    expect(finals.length).toBeGreaterThan(50);
    const last = Math.max(...subscribed.map((r) => firstFetch(r.id) ?? Number.POSITIVE_INFINITY));
    // Measured: the last of the 200 at 545 s, with one race pick in five a refill turn.
    expect(last - at).toBeLessThanOrEqual(10 * MIN);
  });
});
