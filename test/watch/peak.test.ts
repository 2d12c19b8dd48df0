import { describe, expect, it } from 'vitest';
import {
  ASSUMED_JUMP_DELAY_MS,
  FORECAST_MS,
  nextPeakAt,
  PEAK_RACES,
  PeakForecast,
} from '../../src/watch/schedule/peak.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';
import { watchedRace } from '../support/race-watch.js';

const MIN = 60_000;
const now = Date.parse('2026-11-19T17:00:00Z');
const race = (raceId: string, startTime: number, status = 'Open'): RaceWatch =>
  watchedRace({ raceId, startTime, status, country: 'AUS', discoveredAt: now - 60 * MIN });
const many = (n: number, start: (i: number) => number, status?: string) =>
  Array.from({ length: n }, (_, i) => race(`r${i}`, start(i), status));

describe('nextPeakAt (the near-jump load ahead, by the timetable)', () => {
  it('is now while PEAK_RACES races are within 10 minutes of their start or just past it', () => {
    expect(
      nextPeakAt(
        many(PEAK_RACES, (i) => now + i * 30_000),
        now,
      ),
    ).toBe(now);
    expect(
      nextPeakAt(
        many(PEAK_RACES - 1, (i) => now + i * 30_000),
        now,
      ),
    ).toBe(Number.POSITIVE_INFINITY);
  });

  it('counts the races near their jump now (loadNow), the measure of a trough', () => {
    const forecast = new PeakForecast(now);
    for (const r of [
      race('a', now + 10 * MIN),
      race('b', now - 5 * MIN),
      race('c', now + 10 * MIN + 1),
      race('d', now - MIN, 'Interim'),
    ])
      forecast.add(r);
    expect(forecast.loadNow()).toBe(2);
  });

  it('counts a race still Open past its start as near its jump for ASSUMED_JUMP_DELAY_MS from now, not a Closed one', () => {
    const late = many(PEAK_RACES - 1, () => now - 20 * MIN);
    expect(nextPeakAt([...late, race('x', now + 5 * MIN)], now)).toBe(now);
    const closed = [...many(PEAK_RACES - 1, () => now + MIN), race('x', now + MIN, 'Closed')];
    expect(nextPeakAt(closed, now)).toBe(Number.POSITIVE_INFINITY);
  });

  it('finds the instant the load first reaches PEAK_RACES, within FORECAST_MS', () => {
    // Starts 15, 16, ... minutes out: the tenth comes within 10 minutes of its start at 15 + 9 - 10 = 14 min,
    // while the first is still near its jump (it jumps at 15 min + the assumed delay).
    const races = many(PEAK_RACES, (i) => now + (15 + i * 0.1) * MIN);
    expect(nextPeakAt(races, now)).toBe(now + (5 + (PEAK_RACES - 1) * 0.1) * MIN);
    // Spread so that the first has jumped before the last comes near: no peak.
    const spread = many(PEAK_RACES, (i) => now + (5 + i * 2) * MIN);
    expect(nextPeakAt(spread, now)).toBe(Number.POSITIVE_INFINITY);
    const beyond = many(PEAK_RACES, () => now + FORECAST_MS + 10 * MIN + 1);
    expect(nextPeakAt(beyond, now)).toBe(Number.POSITIVE_INFINITY);
    expect(ASSUMED_JUMP_DELAY_MS).toBe(MIN);
  });
});
