import { describe, expect, it } from 'vitest';
import { nextJump } from './meetings-view.js';
import { fieldSize } from './race-view.js';
import { createServerClock, formatCountdown, formatStaleness, jumpLabel } from './server-clock.js';

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
    expect([formatCountdown(307_900), formatCountdown(3_723_000)]).toEqual(['5:07', '1:02:03']);
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
  const race = (status: string, startTime: string) => ({
    raceId: startTime,
    raceNumber: 1,
    name: '',
    startTime,
    status,
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
      nextJump(meeting([race('Final', '2026-01-01T01:00:00Z'), race('Open', '2026-01-01T02:00:00Z')])),
    ).toBe(Date.parse('2026-01-01T02:00:00Z'));
    expect(nextJump(meeting([race('Final', '2026-01-01T01:00:00Z')]))).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('the race header', () => {
  it('counts down to the jump, then says how late an open race is instead of going negative', () => {
    expect(jumpLabel(76_000)).toEqual({ text: '1:16', late: false });
    expect(jumpLabel(0)).toEqual({ text: '0:00', late: false });
    expect(jumpLabel(-76_000)).toEqual({ text: 'late 1:16', late: true });
  });

  it('says how many run while the field can change, and who started once the race is closed', () => {
    const runners = (n: number, scratched: number) =>
      Array.from({ length: n }, (_, i) => ({ scratched: i < scratched })) as Parameters<
        typeof fieldSize
      >[0]['runners'];
    expect(fieldSize({ status: 'Open', runners: runners(8, 1) })).toBe('7 of 8 running');
    expect(fieldSize({ status: 'Final', runners: runners(8, 0) })).toBe('8 starters');
    expect(fieldSize({ status: 'Interim', runners: runners(9, 1) })).toBe('8 starters, 1 scratched');
  });
});
