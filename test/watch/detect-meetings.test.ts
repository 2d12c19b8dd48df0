import { describe, expect, it } from 'vitest';
import type { Meeting } from '../../src/upstream/schemas.js';
import { detectMeetingChanges } from '../../src/watch/detect/detect-meetings.js';

const race = (n: number, status = 'Open') => ({
  id: `race-${n}`,
  race_number: n,
  name: `Race ${n}`,
  start_time: `2025-07-17T0${n}:00:00Z`,
  status,
});

const meeting = (id: string, races: ReturnType<typeof race>[]): Meeting => ({
  meeting: id,
  name: 'Awapuni',
  date: '2025-07-17T00:00:00Z',
  category: 'T',
  country: 'NZ',
  races,
});

const ref = { meetingId: 'm1', name: 'Awapuni', date: '2025-07-17T00:00:00Z', category: 'T', country: 'NZ' };
const raceRef = (n: number, status = 'Open') => ({
  raceId: `race-${n}`,
  raceNumber: n,
  name: `Race ${n}`,
  startTime: `2025-07-17T0${n}:00:00Z`,
  status,
});

describe('detectMeetingChanges', () => {
  it('reports races added to and removed from a meeting, by race number', () => {
    const prev = [meeting('m1', [race(1), race(2), race(3)])];
    const next = [meeting('m1', [race(5), race(1), race(4), race(3)])];
    expect(detectMeetingChanges(prev, next)).toEqual([
      { type: 'meeting.race_added', meetingId: 'm1', data: { meeting: ref, race: raceRef(4) } },
      { type: 'meeting.race_added', meetingId: 'm1', data: { meeting: ref, race: raceRef(5) } },
      { type: 'meeting.race_removed', meetingId: 'm1', data: { meeting: ref, race: raceRef(2) } },
    ]);
  });

  it('reports a meeting that appears, with its races', () => {
    const prev = [meeting('m0', [race(1)])];
    const next = [meeting('m0', [race(1)]), meeting('m1', [race(2), race(1)])];
    expect(detectMeetingChanges(prev, next)).toEqual([
      { type: 'meeting.added', meetingId: 'm1', data: { meeting: ref, races: [raceRef(1), raceRef(2)] } },
    ]);
  });

  it('reports nothing on a first look, for status changes, or for a race list that came back empty', () => {
    expect(detectMeetingChanges([], [meeting('m1', [race(1)])])).toEqual([]);
    expect(detectMeetingChanges([meeting('m1', [race(1)])], [meeting('m1', [race(1, 'Final')])])).toEqual([]);
    expect(detectMeetingChanges([meeting('m1', [race(1)])], [meeting('m1', [])])).toEqual([]);
    expect(detectMeetingChanges([meeting('m1', [race(1)])], [])).toEqual([]);
  });
});
