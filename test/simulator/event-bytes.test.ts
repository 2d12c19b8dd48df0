import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { type EventOptions, eventBytes, eventMembers } from '../../src/simulator/event-payload.js';
import { createSimulator } from '../../src/simulator/index.js';
import { pushRunnerJson } from '../../src/simulator/runner-json.js';
import { DAY, settableClock } from './support.js';

const ALL: EventOptions = {
  moneyTracker: true,
  willPays: true,
  toteTrends: true,
  bigBets: true,
  liveBets: true,
  biggestBet: true,
};
const NONE: EventOptions = {
  moneyTracker: false,
  willPays: false,
  toteTrends: false,
  bigBets: false,
  liveBets: false,
  biggestBet: false,
};

describe('eventBytes', () => {
  it('is JSON.stringify of the payload with each runner record whole, over a race day and its options', async () => {
    const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
    const sim = await createSimulator({
      seed: 7,
      clock,
      day: DAY,
      rateLimit: false,
      logger: pino({ level: 'silent' }),
    });
    const races = sim.world.races.filter((r) => r.meeting.dayKey === DAY).slice(0, 12);
    let compared = 0;
    for (const race of races) {
      // An hour out, the tote's last minutes, results and dividends, long after.
      for (const offset of [-3_600_000, -20_000, 120_000, 600_000, 3_600_000]) {
        const t = race.advertisedStart + offset;
        clock.set(t);
        const { state } = sim.world.stateAt(race.id, t);
        for (const opts of [ALL, NONE]) {
          const input = {
            seed: 7,
            race,
            state,
            t,
            bets: sim.world.bets(race.id),
            opts,
            silkBase: 'http://sim',
          };
          const { data, runners } = eventMembers(input);
          const whole = { ...data, runners: runners.map(({ base, live }) => ({ ...base, ...live })) };
          expect(eventBytes(input).toString()).toBe(JSON.stringify(whole));
          compared++;
        }
      }
    }
    expect(compared).toBe(races.length * 10);
    await sim.close();
    // 120 payloads of ~200 KB built and serialised twice: generous on a busy 2-core machine.
  }, 120_000);
});

describe('pushRunnerJson', () => {
  it('places live members where the base has them, others last, and leaves out undefined ones', () => {
    const base = { a: 1, odds: { win: 2 }, b: [{ c: 'x"y' }], gone: 3, d: null };
    for (const live of [
      { odds: { win: 3 }, deduction: { win: 5 } },
      { deduction: 1, odds: { win: 4 }, gone: undefined },
      {},
    ]) {
      const parts: Buffer[] = [];
      pushRunnerJson(parts, base, live);
      expect(Buffer.concat(parts).toString()).toBe(JSON.stringify({ ...base, ...live }));
    }
  });
});
