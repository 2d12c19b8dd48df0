import type { RaceEvent } from '@racewire/client';
import { describe, expect, it } from 'vitest';
import { formatFolded, formatLine, useColour } from './format.js';
import { OddsFolder } from './odds-fold.js';

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
      '21:04:05  Awapuni R3            runner.scratched              #4 Tickford [2J scratched (late)',
    );
  });

  it('colours by kind of news and never passes control characters from data through', () => {
    const line = formatLine(scratched, true);
    expect(line).toContain('\x1b[33m\x1b[1m#4 Tickford [2J scratched (late)\x1b[22m\x1b[39m');
    expect(line).not.toContain('\x1b[2J');
  });

  it('keeps its columns for a long meeting name, cut with an ellipsis', () => {
    const long = {
      ...scratched,
      data: { ...(scratched.data as object), race: { ...race, meetingName: 'Wolverhampton Synthetic' } },
    };
    const line = formatLine(long as RaceEvent, false);
    expect(line).toBe(
      '21:04:05  Wolverhampton Synth…  runner.scratched              #4 Tickford [2J scratched (late)',
    );
    expect(line.indexOf('runner.scratched')).toBe(formatLine(scratched, false).indexOf('runner.scratched'));
  });

  it('uses colour only on a terminal without NO_COLOR', () => {
    expect(useColour({ isTTY: true }, {})).toBe(true);
    expect(useColour({ isTTY: false }, {})).toBe(false);
    expect(useColour({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(useColour({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
    expect(useColour({ isTTY: false }, { FORCE_COLOR: '1' })).toBe(true);
  });
});

const odds = (seq: number, runnerNumber: number, from: number, to: number, raceId = 'r3'): RaceEvent => ({
  ...scratched,
  id: `${raceId}:${seq}`,
  seq,
  raceId,
  stream: raceId,
  type: 'odds.changed',
  data: {
    race: { ...race, raceId },
    runner: { entrantId: `e${runnerNumber}`, runnerNumber },
    market: 'fixed_win',
    from,
    to,
  },
});

describe('compact mode', () => {
  it("folds a race's odds moves into one line per flush, first price to latest, and passes news through", () => {
    const folder = new OddsFolder();
    expect(folder.push(odds(1, 4, 5, 4.6))).toEqual([]);
    expect(folder.push(odds(2, 2, 3.1, 3.3))).toEqual([]);
    expect(folder.push(odds(3, 4, 4.6, 4.4))).toEqual([]);
    expect(folder.push(scratched)).toEqual([scratched]);
    const [line, ...rest] = folder.flush();
    expect(rest).toEqual([]);
    expect(formatFolded(line!, false)).toBe(
      '21:04:05  Awapuni R3            odds                          3 odds moves: #4 $5.00→$4.40, #2 $3.10→$3.30',
    );
    expect(folder.flush()).toEqual([]);
  });

  it('gives each race its own line and names four runners at most', () => {
    const folder = new OddsFolder();
    for (const n of [1, 2, 3, 4, 5, 6]) folder.push(odds(n, n, 2, 2.5));
    folder.push(odds(7, 1, 8, 7, 'r4'));
    const lines = folder.flush().map((f) => f.summary);
    expect(lines).toEqual([
      '6 odds moves: #1 $2.00→$2.50, #2 $2.00→$2.50, #3 $2.00→$2.50, #4 $2.00→$2.50, +2 more',
      '1 odds move: #1 $8.00→$7.00',
    ]);
  });

  it("counts each move of a tote batch and folds it with the race's fixed-odds moves", () => {
    const folder = new OddsFolder();
    const change = (runnerNumber: number, market: string, from: number, to: number) => ({
      runner: { entrantId: `e${runnerNumber}`, runnerNumber },
      market,
      from,
      to,
    });
    folder.push(odds(1, 4, 5, 4.6));
    const pools: RaceEvent = {
      ...odds(2, 4, 0, 0),
      type: 'odds.pools_changed',
      data: { race, changes: [change(4, 'pool_win', 4.8, 4.4), change(4, 'pool_place', 1.9, 1.8)] },
    };
    expect(folder.push(pools)).toEqual([]);
    expect(folder.push({ ...pools, seq: 3, id: 'r3:3' })).toEqual([]);
    expect(folder.flush().map((f) => f.summary)).toEqual([
      '5 odds moves: #4 $5.00→$4.60, #4 $4.80→$4.40, #4 $1.90→$1.80',
    ]);
  });
});
