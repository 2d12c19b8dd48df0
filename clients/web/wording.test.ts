import { describe, expect, it } from 'vitest';
import { formatDuration, jumpWording } from './wording.js';

describe('wording a punter reads at a glance', () => {
  it('writes durations in minutes and seconds', () => {
    expect(formatDuration(335)).toBe('5 min 35 s');
    expect(formatDuration(40)).toBe('40 s');
    expect(formatDuration(120)).toBe('2 min');
    expect(formatDuration(3900)).toBe('1 h 5 min');
    expect(formatDuration(7200)).toBe('2 h');
    expect(formatDuration(-75)).toBe('1 min 15 s');
  });

  it('says how late or early a race jumped', () => {
    expect(jumpWording(335)).toBe('jumped 5 min 35 s late');
    expect(jumpWording(-40)).toBe('jumped 40 s early');
    expect(jumpWording(0)).toBe('jumped on time');
    expect(jumpWording(undefined)).toBe('jumped');
  });
});
