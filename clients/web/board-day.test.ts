import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MeetingSummary } from './api.js';
import { dayKey, daySwitch, localTime, meetingDay, meetingsOfDay, shiftDay, utcTime } from './board-day.js';

const meeting = (name: string, ...starts: string[]): MeetingSummary => ({
  meetingId: name,
  name,
  country: 'AUS',
  category: 'T',
  races: starts.map((startTime, i) => ({
    raceId: `${name}-${i + 1}`,
    raceNumber: i + 1,
    name: `Race ${i + 1}`,
    startTime,
    status: 'Open',
  })),
});

describe("the board's day in the viewer's zone", () => {
  it('dates an instant in the given zone, not in UTC', () => {
    const t = Date.parse('2026-11-25T14:30:00Z');
    expect(dayKey(t, 'UTC')).toBe('2026-11-25');
    expect(dayKey(t, 'Australia/Sydney')).toBe('2026-11-26'); // UTC+11 in November
    expect(dayKey(t, 'America/New_York')).toBe('2026-11-25');
  });

  it('shifts a date across month and year ends', () => {
    expect(shiftDay('2026-11-30', 1)).toBe('2026-12-01');
    expect(shiftDay('2027-01-01', -1)).toBe('2026-12-31');
    expect(shiftDay('2028-02-28', 1)).toBe('2028-02-29');
  });

  it('shifting forth and back gives the same date (law)', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }),
        fc.integer({ min: -400, max: 400 }),
        (date, n) => {
          const key = date.toISOString().slice(0, 10);
          expect(shiftDay(shiftDay(key, n), -n)).toBe(key);
        },
      ),
    );
  });

  it('gives a meeting the local date of its first race, the three UTC days of a listing apart', () => {
    const perry24 = meeting('Perry Barr', '2026-11-24T19:00:00Z', '2026-11-24T19:20:00Z');
    const perry25 = meeting('Perry Barr', '2026-11-25T19:00:00Z');
    const awapuni = meeting('Awapuni', '2026-11-26T00:15:00Z', '2026-11-25T23:40:00Z');
    const all = [perry24, perry25, awapuni];
    expect(meetingDay(awapuni, 'UTC')).toBe('2026-11-25'); // its first race, not its first listed
    expect(meetingDay(awapuni, 'Pacific/Auckland')).toBe('2026-11-26');
    expect(meetingsOfDay(all, '2026-11-25', 'UTC')).toEqual([perry25, awapuni]);
    expect(meetingsOfDay(all, '2026-11-25', 'Pacific/Auckland')).toEqual([perry24]);
    expect(meetingDay(meeting('No times', 'soon'), 'UTC')).toBeUndefined();
  });

  it('puts every meeting with a start in exactly one day of the switch or none (law)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: Date.parse('2026-11-23'), max: Date.parse('2026-11-28') }), {
          minLength: 1,
          maxLength: 5,
        }),
        fc.constantFrom('UTC', 'Australia/Sydney', 'America/Los_Angeles'),
        (starts, zone) => {
          const m = meeting('M', ...starts.map((s) => new Date(s).toISOString()));
          const days = daySwitch('2026-11-25').map((d) => d.key);
          const hits = days.filter((d) => meetingsOfDay([m], d, zone).length === 1);
          expect(hits.length).toBe(days.includes(meetingDay(m, zone) ?? '') ? 1 : 0);
        },
      ),
    );
  });

  it('names the switch with dates', () => {
    expect(daySwitch('2026-11-26')).toEqual([
      { offset: -1, key: '2026-11-25', name: 'Yesterday', date: 'Wed 25 Nov' },
      { offset: 0, key: '2026-11-26', name: 'Today', date: 'Thu 26 Nov' },
      { offset: 1, key: '2026-11-27', name: 'Tomorrow', date: 'Fri 27 Nov' },
    ]);
  });

  it('writes times in the local zone, and the UTC one for the hover', () => {
    const t = Date.parse('2026-11-26T03:05:00Z');
    expect(localTime(t, 'Australia/Sydney')).toBe('14:05');
    expect(localTime(t, 'Europe/London')).toBe('03:05');
    expect(localTime(Date.parse('2026-11-26T00:05:00Z'), 'UTC')).toBe('00:05');
    expect(localTime(t + 9_000, 'Australia/Sydney', true)).toBe('14:05:09');
    expect(utcTime(t)).toBe('03:05 UTC, Thu 26 Nov');
  });
});
