/**
 * Emergencies (issue 22; not measured: neither real payload lists one): acceptances name one or two
 * emergencies in some full thoroughbred fields; a runner of the field scratched before the deadline lets
 * the first one in (it becomes a starter: `is_emergency` false, `emergency_position` ""); those still
 * waiting at the deadline are scratched. And what racewire's detectors make of it, on the simulator's own
 * payloads: the scratchings, nothing for the promotion, never a runner added or removed.
 */
import type { DetectedRaceEvent } from '@racewire/client/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSimulator, type Simulator } from '../../src/simulator/index.js';
import { EMERGENCY_DEADLINE, marketStory } from '../../src/simulator/market.js';
import type { RaceStatic } from '../../src/simulator/model.js';
import { eventResponseSchema } from '../../src/upstream/schemas.js';
import { type RaceState, trackRace } from '../../src/watch/track/track-race.js';
import { API, DAY, settableClock } from './support.js';

type Rec = Record<string, unknown>;
const SEED = 4;

describe('emergencies and their promotion on a scratching', () => {
  const clock = settableClock(Date.parse(`${DAY}T00:00:00Z`));
  let sim: Simulator;
  let day: RaceStatic[];
  let withEmergencies: RaceStatic[];
  beforeAll(async () => {
    sim = await createSimulator({ seed: SEED, clock, day: DAY, rateLimit: false });
    day = sim.world.races.filter((r) => r.meeting.dayKey === DAY && !r.abandoned);
    withEmergencies = day.filter((r) => r.runners.some((x) => x.emergency !== null));
  });
  afterAll(() => sim.close());

  const payloadAt = async (race: RaceStatic, t: number): Promise<Rec> => {
    clock.set(t);
    const res = await sim.app.inject({ method: 'GET', url: `${API}/events/${race.id}?enc=json` });
    return JSON.parse(res.body) as Rec;
  };
  const runnersOf = (payload: Rec) => (payload.data as { runners: Rec[] }).runners;
  const drafts = (race: RaceStatic) => marketStory(SEED, race, sim.world.lifecycle(race.id));

  it('lists one or two emergencies, the last numbers of 12+ thoroughbred fields, in every simulated day', () => {
    // Rate chosen (30 % of such fields), not measured: ~40 races a day.
    expect(withEmergencies.length).toBeGreaterThanOrEqual(20);
    expect(withEmergencies.length).toBeLessThanOrEqual(70);
    for (const race of withEmergencies) {
      expect([race.meeting.category, race.runners.length >= 12]).toEqual(['T', true]);
      const positions = race.runners.map((r) => r.emergency).filter((p) => p !== null);
      expect(positions.length === 1 ? [1] : [1, 2]).toEqual(positions);
      const first = race.runners.length - positions.length;
      expect(race.runners.slice(first).map((r) => r.emergency)).toEqual(positions);
    }
    expect(
      day
        .filter((r) => !withEmergencies.includes(r))
        .every((r) => r.runners.every((x) => x.emergency === null)),
    ).toBe(true);
  });

  it('promotes the first emergency waiting at a scratching before the deadline; scratches the rest at it', () => {
    let promotions = 0;
    for (const race of withEmergencies) {
      const deadline = race.advertisedStart - EMERGENCY_DEADLINE;
      const story = drafts(race);
      const waiting = race.runners.filter((r) => r.emergency !== null).map((r) => r.entrantId);
      for (const [k, d] of story.entries()) {
        if (d.type === 'promotion') {
          promotions++;
          const before = story[k - 1] as (typeof story)[number];
          // At the instant of a scratching of a runner of the field, before the deadline.
          expect([before.type, before.at, d.at <= deadline]).toEqual(['scratching', d.at, true]);
          expect(waiting.includes(before.detail.entrantId as string)).toBe(false);
          expect(d.detail.entrantId).toBe(waiting.shift());
        } else if (d.type === 'scratching' && waiting.includes(d.detail.entrantId as string)) {
          waiting.splice(waiting.indexOf(d.detail.entrantId as string), 1);
          expect(d.at).toBeLessThanOrEqual(deadline);
        }
      }
      // None waits past the deadline.
      expect(waiting).toEqual([]);
    }
    expect(promotions).toBeGreaterThanOrEqual(3);
  });

  it('shows the promotion in the payload, and racewire gives the scratching and nothing for the promotion', async () => {
    // A race with two emergencies of which one is promoted: the other is still waiting at the deadline.
    const race = withEmergencies.find(
      (r) =>
        r.runners.filter((x) => x.emergency !== null).length === 2 &&
        drafts(r).filter((d) => d.type === 'promotion').length === 1,
    ) as RaceStatic;
    expect(race).toBeDefined();
    const story = drafts(race);
    const promotion = story.find((d) => d.type === 'promotion')!;
    const scratched = story[story.indexOf(promotion) - 1]!.detail.entrantId;
    const deadline = race.advertisedStart - EMERGENCY_DEADLINE;
    const life = sim.world.lifecycle(race.id);
    const times = [promotion.at - 1, promotion.at, deadline - 1, deadline, life.closeAt, life.finalAt];
    const payloads: Rec[] = [];
    for (const t of times) payloads.push(await payloadAt(race, t));

    const promoted = (p: Rec) => runnersOf(p).find((r) => r.entrant_id === promotion.detail.entrantId) as Rec;
    expect([promoted(payloads[0]!).is_emergency, promoted(payloads[0]!).emergency_position]).toEqual([
      true,
      '1',
    ]);
    expect([promoted(payloads[1]!).is_emergency, promoted(payloads[1]!).emergency_position]).toEqual([
      false,
      '',
    ]);
    expect(promoted(payloads[1]!).is_scratched).toBe(false);
    // Every runner listed all along: a promotion adds no runner.
    for (const p of payloads) expect(runnersOf(p)).toHaveLength(race.runners.length);
    // The promoted emergency can run: it is in the field at the close, and can be placed.
    const second = race.runners.find((r) => r.emergency === 2)!;
    const secondAt = (p: Rec) => runnersOf(p).find((x) => x.entrant_id === second.entrantId) as Rec;
    expect([secondAt(payloads[2]!).is_emergency, secondAt(payloads[2]!).is_scratched]).toEqual([true, false]);
    // Not promoted by the deadline: scratched, still flagged an emergency (it never gained a start).
    expect([secondAt(payloads[3]!).is_emergency, secondAt(payloads[3]!).is_scratched]).toEqual([true, true]);
    const results = (payloads[5]!.data as { results: Rec[] }).results;
    expect(results.some((r) => r.entrant_id === second.entrantId)).toBe(false);
    // The promoted emergency is a starter at the close.
    expect(promoted(payloads[4]!).is_scratched).toBe(false);

    let state: RaceState | undefined;
    const eventsAt: DetectedRaceEvent[][] = [];
    payloads.forEach((payload, i) => {
      const result = trackRace(state, eventResponseSchema.parse(payload), times[i]!, { raceId: race.id });
      state = result.state;
      const events: DetectedRaceEvent[] = [];
      for (const e of result.entries) if (e.kind === 'event') events.push(e.event as DetectedRaceEvent);
      eventsAt.push(events);
    });
    const scratchings = (k: number) =>
      eventsAt[k]!.filter((e) => e.type === 'runner.scratched').map(
        (e) => (e.data as unknown as { runner: Rec }).runner.entrantId,
      );
    // The promotion's instant: the scratching only (and the market's reframe), no event of the emergency.
    expect(scratchings(1)).toEqual([scratched]);
    const aboutPromoted = eventsAt[1]!.filter(
      (e) =>
        e.type !== 'odds.changed' &&
        e.type !== 'odds.pools_changed' &&
        JSON.stringify(e.data).includes(String(promotion.detail.entrantId)),
    );
    expect(aboutPromoted).toEqual([]);
    // At the deadline, each emergency still waiting is scratched, and nothing else.
    expect(scratchings(3)).toEqual([second.entrantId]);
    const all = eventsAt.flat().map((e) => e.type);
    expect(
      all.filter((t) => t === 'runner.added' || t === 'runner.removed' || t === 'runner.reinstated'),
    ).toEqual([]);
  });
});
