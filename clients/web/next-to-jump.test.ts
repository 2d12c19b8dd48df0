import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MeetingSummary } from './api.js';
import { nextToJump } from './next-to-jump.js';

const NOW = Date.parse('2026-11-26T03:00:00Z');
const at = (min: number) => new Date(NOW + min * 60_000).toISOString();

const meeting = (name: string, category: string, races: [number, string][]): MeetingSummary => ({
  meetingId: name,
  name,
  country: 'AUS',
  category,
  races: races.map(([min, status], i) => ({
    raceId: `${name}-${i + 1}`,
    raceNumber: i + 1,
    name: '',
    startTime: at(min),
    status,
  })),
});

describe('next to jump', () => {
  const meetings = [
    meeting('Awapuni', 'T', [
      [-30, 'Final'],
      [-2, 'Open'],
      [25, 'Open'],
    ]),
    meeting('Addington', 'H', [
      [-5, 'Interim'],
      [4, 'Open'],
    ]),
    meeting('Wentworth Park', 'G', [
      [-90, 'Open'],
      [4, 'Upcoming'],
      [12, 'Abandoned'],
    ]),
  ];

  it('lists the races still to jump across codes, soonest first, a late one included', () => {
    expect(
      nextToJump(meetings, NOW, 10).map((r) => `${r.category} ${r.meetingName} R${r.raceNumber}`),
    ).toEqual(['T Awapuni R2', 'H Addington R2', 'G Wentworth Park R2', 'T Awapuni R3']);
  });

  it('leaves out a race listed open an hour past its start, and keeps to the limit', () => {
    expect(nextToJump(meetings, NOW, 10).some((r) => r.raceId === 'Wentworth Park-1')).toBe(false);
    expect(nextToJump(meetings, NOW, 2).map((r) => r.raceId)).toEqual(['Awapuni-2', 'Addington-2']);
  });

  it('is ordered by start and holds only races to jump (law)', () => {
    const race = fc.tuple(
      fc.integer({ min: -120, max: 240 }),
      fc.constantFrom('Open', 'Upcoming', 'Final', 'Closed'),
    );
    fc.assert(
      fc.property(fc.array(fc.array(race, { maxLength: 8 }), { maxLength: 6 }), fc.nat(12), (days, limit) => {
        const list = nextToJump(
          days.map((races, i) => meeting(`M${i}`, 'T', races)),
          NOW,
          limit,
        );
        expect(list.length).toBeLessThanOrEqual(limit);
        for (let i = 1; i < list.length; i++)
          expect(list[i]!.start).toBeGreaterThanOrEqual(list[i - 1]!.start);
        for (const r of list) expect(r.start).toBeGreaterThanOrEqual(NOW - 60 * 60_000);
      }),
    );
  });
});
