import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { bytes, expectWithin, realEvent, sizeFigures } from './measure.js';
import { eventsAt, likeTheRealRace, REAL_OPTIONS } from './sim-stats.js';
import { DAY, settableClock } from './support.js';

type Rec = Record<string, unknown>;

describe('payload sizes, as the real /events payload has them', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let payloads: { data: Rec; bytes: number }[];
  const real = () => {
    const event = realEvent();
    return sizeFigures([{ data: event.data, bytes: bytes(event) }]);
  };
  beforeAll(async () => {
    sim = await createSimulator({ seed: 21, clock, day: DAY, rateLimit: false });
    // Final 8-runner thoroughbred races, as the real one (Awapuni R1), with the real request's options.
    const races = likeTheRealRace(sim.world, DAY).slice(0, 24);
    payloads = await eventsAt(
      sim,
      clock,
      races,
      (r) => sim.world.lifecycle(r.id).finalAt + 60_000,
      REAL_OPTIONS,
    );
  });
  afterAll(() => sim.close());

  it('sends an 8-runner Final payload of the real size (minified)', () => {
    expectWithin('8-runner payload bytes', sizeFigures(payloads).payload, real().payload, 0.15);
  });

  it('sends runners of the real size and member count, with the long members filled', () => {
    const simulated = sizeFigures(payloads);
    expectWithin('bytes per runner', simulated.runner, real().runner, 0.15);
    expectWithin('members per runner', simulated.members, real().members, 0.05);
    expectWithin('share of last_starts in a runner', simulated.lastStartsShare, real().lastStartsShare, 0.15);
    // Members in the real order: every simulated runner's keys are the real runner's, in order, less the
    // ones the real field also leaves out of some runners (no win history without a win, no picks).
    const order = Object.keys((realEvent().data.runners as Rec[])[0] as Rec);
    for (const r of payloads.flatMap((p) => p.data.runners as Rec[])) {
      const keys = Object.keys(r).filter((k) => k !== 'deduction');
      expect(keys).toEqual(order.filter((k) => keys.includes(k)));
      expect(
        order.filter((k) => !keys.includes(k)).every((k) => k === 'runner_win_history' || k === 'picks'),
      ).toBe(true);
    }
  });

  it('spends the real share of a payload on runner records (runners, favourite and mover)', () => {
    // Runners alone are 62 % of the real payload; its mover happens to be its biggest runner (32 last
    // starts, 30 KB), so the three members together are the statistic that does not hang on one draw.
    expectWithin(
      'runner records share of the payload',
      sizeFigures(payloads).runnerRecordsShare,
      real().runnerRecordsShare,
      0.05,
    );
  });
});
