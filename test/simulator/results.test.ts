import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PARTIAL_RESULTS } from '../../src/simulator/event-payload.js';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { expectNear, expectWithin, interleaving, mean, realEvent, SECOND_REAL_FINAL } from './measure.js';
import { eventsAt } from './sim-stats.js';
import { DAY, settableClock } from './support.js';

type Rec = Record<string, unknown>;

describe('results and dividends, as the real Final payloads list them', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let finals: { data: Rec }[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: 3, clock, day: DAY, rateLimit: false });
    const races = sim.world.races.filter((r, i) => r.meeting.dayKey === DAY && !r.abandoned && i % 6 === 0);
    finals = await eventsAt(sim, clock, races, (r) => sim.world.lifecycle(r.id).finalAt, 'enc=json');
  });
  afterAll(() => sim.close());

  it('lists every starter with margins in half the races, the top 4 without margins in the other half', () => {
    const real = realEvent().data;
    const starters = (d: Rec) => (d.runners as Rec[]).filter((r) => !r.is_scratched).length;
    // Awapuni lists all 8 with margins; the second real Final the top 4 of 7, margin_length 0 throughout.
    expect((real.results as Rec[]).length).toBe(starters(real));
    expect(SECOND_REAL_FINAL.resultsListed).toBe(PARTIAL_RESULTS);
    let partial = 0;
    for (const { data } of finals) {
      const rows = data.results as Rec[];
      // 1, 2, 3, ... but for a dead heat (dead-heat.test.ts): one row sharing the position above it.
      const heat = rows.findIndex((r, i) => i > 0 && r.position === rows[i - 1]?.position);
      expect(rows.map((r) => r.position)).toEqual(rows.map((_, i) => (i === heat ? i : i + 1)));
      if (rows.length === starters(data)) {
        expect(rows.slice(1).every((r) => typeof r.positional_margin === 'string')).toBe(true);
        if (rows.length > PARTIAL_RESULTS) continue;
      }
      if (rows.length < starters(data)) {
        partial++;
        expect(rows).toHaveLength(PARTIAL_RESULTS);
      }
      if (rows.every((r) => r.margin_length === 0)) {
        expect(rows.some((r) => 'positional_margin' in r)).toBe(false);
      }
    }
    const long = finals.filter(({ data }) => starters(data) > PARTIAL_RESULTS).length;
    expectNear('Final payloads listing the top 4 only', partial / long, 1 / 2, 0.12);
  });

  it('interleaves the Interim and Final dividend rows as the real Final does (IFIFFFFIIIFIIF)', () => {
    const real = realEvent().data.dividends as { status: string }[];
    const sim = finals.map(({ data }) => interleaving(data.dividends as { status: string }[]));
    expectWithin('runs of a status against a random order', mean(sim), interleaving(real), 0.15);
  });
});
