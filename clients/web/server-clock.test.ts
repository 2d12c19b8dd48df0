import { describe, expect, it } from 'vitest';
import { nextJump } from './meetings-view.js';
import { liveStaleness } from './ops-view.js';
import { createServerClock, formatCountdown, formatStaleness } from './server-clock.js';

describe('the server clock', () => {
  it('knows nothing before the first sample', () => {
    expect(createServerClock(() => 0).now()).toBeUndefined();
  });

  it('runs from the last sample at the server clock speed', () => {
    let local = 1_000;
    const clock = createServerClock(() => local);
    clock.sample(1_700_000_000_000, 10);
    local += 1_500;
    expect(clock.now()).toBe(1_700_000_015_000);
    clock.sample(1_700_000_100_000, 0); // a nonsense speed counts as real time
    local += 1_000;
    expect(clock.now()).toBe(1_700_000_101_000);
    expect(clock.speed()).toBe(1);
  });

  it('formats countdowns and staleness', () => {
    expect([formatCountdown(307_900), formatCountdown(3_723_000), formatCountdown(-42_000)]).toEqual([
      '5:07',
      '1:02:03',
      '-0:42',
    ]);
    expect([null, 200, 12_400, 240_000, 7_200_000].map(formatStaleness)).toEqual([
      'never',
      'fresh',
      '12s',
      '4m',
      '2h',
    ]);
  });
});

describe('meeting and ops summaries', () => {
  const race = (status: string, startTime: string, staleMs: number | null) => ({
    raceId: startTime,
    raceNumber: 1,
    name: '',
    startTime,
    status,
    staleMs,
  });
  const meeting = (races: ReturnType<typeof race>[]) => ({
    meetingId: 'm',
    name: 'M',
    country: 'NZ',
    category: 'T',
    races,
  });

  it('orders meetings by their next unsettled race', () => {
    expect(
      nextJump(meeting([race('Final', '2026-01-01T01:00:00Z', 1), race('Open', '2026-01-01T02:00:00Z', 1)])),
    ).toBe(Date.parse('2026-01-01T02:00:00Z'));
    expect(nextJump(meeting([race('Final', '2026-01-01T01:00:00Z', 1)]))).toBe(Number.POSITIVE_INFINITY);
  });

  it('reports the worst and median staleness of races still to settle', () => {
    const m = meeting([
      race('Open', 'a', 1_000),
      race('Open', 'b', 5_000),
      race('Interim', 'c', 3_000),
      race('Final', 'd', 999_000),
      race('Open', 'e', null),
    ]);
    expect(liveStaleness([m])).toEqual({ worst: 5_000, median: 3_000 });
    expect(liveStaleness([])).toEqual({ worst: null, median: null });
  });
});
