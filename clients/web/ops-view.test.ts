import { describe, expect, it } from 'vitest';
import { behindPlan, budgetText, isBehindPlan, sliceLines, upstreamBadge, usageText } from './ops-view.js';

const budget = {
  maxPerMinute: 100,
  used: 100,
  left: 0,
  queued: 3,
  paused: false,
  saturated: true,
  discoveryPerMinute: 10,
  nearJump: 6,
  nearJumpShare: 0.734,
  slices: {
    planned: { discovery: 10, nearJump: 64.6, postJump: 4, lateScratchings: 9.2, earlyScratchings: 10.8 },
    spent: { discovery: 12, nearJump: 63, postJump: 5, lateScratchings: 9, earlyScratchings: 11 },
  },
};

describe('the operations panel', () => {
  it('judges a data age against twice the planned interval and two wall seconds on the race clock', () => {
    // x10: two wall seconds are 20 s of racewire's clock.
    expect(isBehindPlan(2 * 3_000 + 20_000, 3_000, 10)).toBe(false);
    expect(isBehindPlan(2 * 3_000 + 20_001, 3_000, 10)).toBe(true);
    expect(isBehindPlan(2 * 60_000 + 2_001, 60_000, 1)).toBe(true);
    // A race the scheduler no longer plans for (settling) is never behind.
    expect(isBehindPlan(3_600_000, undefined, 1)).toBe(false);
  });

  it('counts the races behind the plan among those with data', () => {
    const ops = {
      clockSpeed: 1,
      staleMs: { near: 9_000, far: 600_000, idle: 5_000 },
      plannedMs: { near: 3_000, far: 1_200_000 },
    };
    expect(behindPlan(ops)).toEqual({ behind: 1, of: 3 });
  });

  it('shows each slice of the budget as planned and as spent, and no spend on a node that does not poll', () => {
    expect(sliceLines(budget).map((l) => `${l.label}: ${l.text}`)).toEqual([
      'listing: 10 planned / 12 spent',
      'near the jump: 65 planned / 63 spent',
      'after the jump: 4 planned / 5 spent',
      'late scratchings: 9 planned / 9 spent',
      'early scratchings: 11 planned / 11 spent',
    ]);
    const follower = { ...budget, slices: { ...budget.slices, spent: null } };
    expect(sliceLines(follower)[1]!.text).toBe('65 planned / - spent');
  });

  it('says what the budget is for, and that a full one is the design', () => {
    expect(budgetText({ budget, clockSpeed: 10 })).toEqual({
      purpose:
        "100 requests a minute of racewire's clock (×10: 1000 a real minute); about 10 to list the meetings, the rest for races.",
      state:
        'Races ask for more than the budget, by design: the scheduler spends it all, 73 % of the race requests on the 6 races near the jump.',
    });
    expect(budgetText({ budget: { ...budget, saturated: false }, clockSpeed: 1 })).toEqual({
      purpose: '100 requests a minute; about 10 to list the meetings, the rest for races.',
      state: 'Spare: every race is fetched as often as its phase needs.',
    });
    expect(budgetText({ budget: { ...budget, paused: true }, clockSpeed: 1 }).state).toBe(
      'Paused: the racing API answered 429, every request waits.',
    );
  });

  it('shows the memory and the database bytes in whole MB, and no disk for a store elsewhere', () => {
    const MiB = 1_048_576;
    expect(
      usageText({ rssBytes: 181.6 * MiB, heapUsedBytes: 90.4 * MiB, dataDirBytes: 120.5 * MiB }),
    ).toEqual({ memory: '182 MB (heap 90 MB)', disk: '121 MB' });
    expect(usageText({ rssBytes: 300 * MiB, heapUsedBytes: 99.49 * MiB })).toEqual({
      memory: '300 MB (heap 99 MB)',
      disk: 'none in DATA_DIR',
    });
  });

  it('badges simulated and replayed data, and nothing for the racing API', () => {
    expect(upstreamBadge('embedded simulator')?.text).toBe('simulated data');
    expect(upstreamBadge('replay')?.text).toBe('replayed data');
    expect(upstreamBadge('racing API')).toBeUndefined();
    expect(upstreamBadge(undefined)).toBeUndefined();
  });
});
