import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { realMeetings } from './measure.js';
import { DAY, get, settableClock } from './support.js';

type Summary = { id: string; status: string; protest?: boolean; protest_reason?: string };
const summaries = (body: { data: { meetings: { races: Summary[] }[] } }) =>
  body.data.meetings.flatMap((m) => m.races);

describe('protests, as the real list shows them', () => {
  const clock = settableClock(Date.parse('2026-11-24T06:00:00Z'));
  let sim: Simulator;
  let listed: Summary[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: 17, clock, day: DAY, rateLimit: false });
    listed = [];
    for (const offset of [0, 200]) {
      listed.push(
        ...summaries(
          (
            await get(sim, `/meetings?date_from=2026-11-21&date_to=2026-11-23&limit=200&offset=${offset}`)
          ).json(),
        ),
      );
    }
  });
  afterAll(() => sim.close());

  it('marks decided protests on Final races only, protest true also when dismissed, absent otherwise', () => {
    const real = summaries(realMeetings() as never);
    const realProtests = real.filter((r) => 'protest' in r);
    expect(
      realProtests.every(
        (r) => r.protest === true && r.status === 'Final' && typeof r.protest_reason === 'string',
      ),
    ).toBe(true);
    expect(realProtests.some((r) => /DISMISSED/.test(r.protest_reason as string))).toBe(true);
    const protests = listed.filter((r) => 'protest' in r);
    expect(listed).toHaveLength(3 * 748);
    // The real rate, 7 in 748, over three days.
    const expected = (3 * 748 * realProtests.length) / real.length;
    expect(protests.length).toBeGreaterThanOrEqual(expected * 0.5);
    expect(protests.length).toBeLessThanOrEqual(expected * 1.6);
    expect(
      protests.every(
        (r) => r.protest === true && r.status === 'Final' && (r.protest_reason ?? '').length > 10,
      ),
    ).toBe(true);
    expect(listed.filter((r) => !('protest' in r)).every((r) => !('protest_reason' in r))).toBe(true);
  });

  it('lodges a protest a minute after the Interim dividends: Interim with protest true and its reason until Final', async () => {
    let lodged = 0;
    for (const r of listed.filter((x) => x.protest)) {
      const life = sim.world.lifecycle(r.id);
      clock.set(life.interimDividendsAt + 60_000 - 1);
      const before = (await get(sim, `/events/${r.id}`)).json().data.race;
      expect(['protest' in before, 'protest_reason' in before, before.status]).toEqual([
        false,
        false,
        'Interim',
      ]);
      clock.set(life.finalAt - 1);
      const heard = (await get(sim, `/events/${r.id}`)).json().data.race;
      if (life.protest === 'disqualified') {
        // The stewards' own decision: announced with it, at Final.
        expect(['protest' in heard, heard.status]).toEqual([false, 'Interim']);
      } else {
        lodged++;
        // e.g. "Protest UPHELD 2nd (#4) vs 1st (#3)" at Final, "Protest 2nd (#4) vs 1st (#3)" while heard.
        const reason = (r.protest_reason as string).replace(/ (UPHELD|DISMISSED)( -)?/, '');
        expect([heard.protest, heard.protest_reason, heard.status]).toEqual([true, reason, 'Interim']);
        expect(reason).toMatch(/^Protest \d(st|nd|rd) \(#\d+\) vs? \d(st|nd|rd) \(#\d+\)$/);
      }
      clock.set(Date.parse('2026-11-24T06:00:00Z'));
    }
    // ~0.94 % of races, 4 in 7 of them protests (upheld or dismissed): a few every simulated day.
    expect(lodged).toBeGreaterThanOrEqual(3);
  });

  it('keeps the placings of a dismissed protest and changes them for an upheld one, at Final', async () => {
    const kinds = new Map<string, string[]>();
    for (const r of listed.filter((x) => x.protest)) {
      const life = sim.world.lifecycle(r.id);
      const kind = life.protest as string;
      kinds.set(kind, [...(kinds.get(kind) ?? []), r.id]);
      clock.set(life.finalAt - 1);
      const interim = (await get(sim, `/events/${r.id}`)).json().data;
      expect(['protest' in interim.race, interim.race.status]).toEqual([kind !== 'disqualified', 'Interim']);
      clock.set(life.finalAt);
      const final = (await get(sim, `/events/${r.id}`)).json().data;
      expect([final.race.protest, final.race.status, final.race.protest_reason]).toEqual([
        true,
        'Final',
        r.protest_reason,
      ]);
      const order = (d: { results: { entrant_id: string }[] }) => d.results.map((x) => x.entrant_id).join();
      expect([kind, order(final) === order(interim)]).toEqual([kind, kind === 'dismissed']);
      clock.set(Date.parse('2026-11-24T06:00:00Z'));
    }
    expect(new Set(kinds.keys())).toEqual(new Set(['disqualified', 'dismissed', 'upheld']));
  });

  it('has no protest members on an /events race record without a protest, as the real payload', async () => {
    const plain = listed.find((r) => r.status === 'Final' && !r.protest) as Summary;
    const race = (await get(sim, `/events/${plain.id}`)).json().data.race;
    expect('protest' in race || 'protest_reason' in race).toBe(false);
  });
});
