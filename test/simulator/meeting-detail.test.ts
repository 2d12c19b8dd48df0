import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { realMeetingDetail } from './measure.js';
import { DAY, get, settableClock } from './support.js';

type Rec = Record<string, unknown>;
const FOB = ['fob_mnemonic', 'fob_sell_date', 'fob_close_date', 'fob_complete_date', 'fob_club_day'];

describe('GET /meetings/{id}, as the real meeting', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  beforeAll(async () => {
    sim = await createSimulator({ seed: 2, clock, day: DAY, rateLimit: false });
  });
  afterAll(() => sim.close());

  it('has the real members in the real order, with its fob_* and track_mnemonic values', async () => {
    const real = (realMeetingDetail().data.meetings as Rec[])[0] as Rec;
    for (const country of ['AUS', 'NZ']) {
      const meeting = sim.world.meetings.find((m) => m.dayKey === DAY && m.country === country);
      const body = (await get(sim, `/meetings/${meeting?.id}`)).json();
      const sim1 = (body.data.meetings as Rec[])[0] as Rec;
      expect(Object.keys(sim1)).toEqual(Object.keys(real));
      for (const key of FOB) expect([key, sim1[key]]).toEqual([key, real[key]]);
      expect(sim1.is_fob_meeting).toBe(false);
      if (country === 'AUS') expect(sim1.track_mnemonic).toBe(real.track_mnemonic);
      else expect(sim1.track_mnemonic).toMatch(/^[A-Z]{1,4}$/);
    }
  });
});
