import type { RaceEvent } from '@racewire/client';
import { describe, expect, it } from 'vitest';
import { formatLine, useColour } from './format.js';

const race = { meetingName: 'Awapuni', raceNumber: 3, raceId: 'r3', meetingId: 'm1' };
const scratched: RaceEvent = {
  id: 'r3:7',
  type: 'runner.scratched',
  timestamp: '2026-11-22T21:04:05.123Z',
  stream: 'r3',
  seq: 7,
  meetingId: 'm1',
  raceId: 'r3',
  data: { race, runner: { runnerNumber: 4, name: 'Tickford\x1b[2J' }, late: true },
};

describe('ticker lines', () => {
  it('prints time, place, type and what happened on one plain line without colour', () => {
    expect(formatLine(scratched, false)).toBe(
      '21:04:05  Awapuni R3          runner.scratched          #4 Tickford [2J scratched (late)',
    );
  });

  it('colours by kind of news and never passes control characters from data through', () => {
    const line = formatLine(scratched, true);
    expect(line).toContain('\x1b[33m\x1b[1m#4 Tickford [2J scratched (late)\x1b[22m\x1b[39m');
    expect(line).not.toContain('\x1b[2J');
  });

  it('uses colour only on a terminal without NO_COLOR', () => {
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(useColour({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });
});
