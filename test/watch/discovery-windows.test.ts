import { describe, expect, it } from 'vitest';
import {
  AHEAD_INTERVAL_MS,
  currentWindows,
  type DayWindow,
  dayCadence,
  windowDates,
  windowDueAt,
} from '../../src/watch/schedule/discovery-windows.js';
import type { RaceWatch } from '../../src/watch/track/race-watch.js';

const NOW = Date.parse('2025-11-22T12:00:00Z');
const MIN = 60_000;
const cadences = { liveIntervalMs: 6_000, aheadIntervalMs: AHEAD_INTERVAL_MS };

const race = (id: string, startTime: number, status = 'Open'): RaceWatch => ({
  raceId: id,
  meetingId: 'm',
  meetingName: 'M',
  raceNumber: 1,
  name: id,
  country: 'NZ',
  category: 'T',
  startTime,
  status,
  discoveredAt: 0,
  dirty: false,
  dividends: 'none',
  failures: 0,
});

const day = (raceIds: string[], patch: Partial<DayWindow> = {}): DayWindow => ({
  date: '2025-11-22',
  raceIds,
  failures: 0,
  refreshedAt: NOW - 1_000,
  ...patch,
});

const races = new Map(
  [
    race('soon', NOW + 59 * MIN),
    race('later', NOW + 61 * MIN),
    race('running', NOW - 5 * MIN, 'Closed'),
    race('done', NOW - 60 * MIN, 'Final'),
    race('off', NOW - 30 * MIN, 'Abandoned'),
    race('stuck', NOW - 7 * 60 * MIN, 'Open'),
  ].map((r) => [r.raceId, r]),
);

describe('discovery day windows', () => {
  it('are yesterday, today and tomorrow in UTC', () => {
    expect(windowDates(NOW)).toEqual(['2025-11-21', '2025-11-22', '2025-11-23']);
    expect(windowDates(Date.parse('2025-11-22T23:59:59.999Z'))).toEqual([
      '2025-11-21',
      '2025-11-22',
      '2025-11-23',
    ]);
  });

  it('is live while a race not finished starts within the hour or is running', () => {
    expect(dayCadence(day(['soon', 'done']), races, NOW)).toBe('live');
    expect(dayCadence(day(['running', 'done']), races, NOW)).toBe('live');
  });

  it('is ahead with races more than an hour away, or none listed yet', () => {
    expect(dayCadence(day(['later', 'done']), races, NOW)).toBe('ahead');
    expect(dayCadence(day([]), races, NOW)).toBe('ahead');
  });

  it('is settled once every race is Final, Abandoned or stuck for six hours as its last refresh found them', () => {
    expect(dayCadence(day(['done', 'off', 'stuck'], { listedSettled: true }), races, NOW)).toBe('settled');
  });

  it('stays live for one more refresh when its races finished after it was last listed', () => {
    // The race's own fetch saw Final first: the meeting's document must still get that status from a listing.
    const listedBefore = day(['done'], { listedSettled: false });
    expect(dayCadence(listedBefore, races, NOW)).toBe('live');
    expect(windowDueAt(listedBefore, races, NOW, cadences)).toBe(NOW - 1_000 + 6_000);
  });

  it('is due at once when never listed, by cadence after a refresh, never when settled', () => {
    expect(windowDueAt(day(['soon'], { refreshedAt: undefined }), races, NOW, cadences)).toBe(NOW);
    expect(windowDueAt(day(['soon']), races, NOW, cadences)).toBe(NOW - 1_000 + 6_000);
    expect(windowDueAt(day(['later']), races, NOW, cadences)).toBe(NOW - 1_000 + AHEAD_INTERVAL_MS);
    expect(windowDueAt(day(['done'], { listedSettled: true }), races, NOW, cadences)).toBe(
      Number.POSITIVE_INFINITY,
    );
  });

  it('retries a failed day after a doubling back-off capped at a minute', () => {
    const failed = (failures: number) => day(['done'], { failures, failedAt: NOW });
    expect(windowDueAt(failed(1), races, NOW, cadences)).toBe(NOW + 12_000);
    expect(windowDueAt(failed(3), races, NOW, cadences)).toBe(NOW + 48_000);
    expect(windowDueAt(failed(4), races, NOW, cadences)).toBe(NOW + 60_000);
  });

  it('keeps what it knew of a day across the roll-over and forgets the day that left', () => {
    const known = currentWindows(new Map(), NOW);
    known.set('2025-11-22', day(['soon']));
    const next = currentWindows(known, NOW + 24 * 60 * MIN);
    expect([...next.keys()]).toEqual(['2025-11-22', '2025-11-23', '2025-11-24']);
    expect(next.get('2025-11-22')).toBe(known.get('2025-11-22'));
    expect(next.get('2025-11-24')).toEqual({ date: '2025-11-24', raceIds: [], failures: 0 });
  });
});
