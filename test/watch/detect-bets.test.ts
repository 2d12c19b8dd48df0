/**
 * Bets as the real API and the official description send them: the schema keeps every shape (uuid or byte
 * array ids, null selections, race number 0) and drops only a malformed bet; `market.big_bet` names a runner
 * only for a leg on this race whose entrant id is one of its runners (a law, property-tested).
 */
import type { BigBetData, RaceContext } from '@racewire/client/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventResponseSchema } from '../../src/upstream/schemas.js';
import { detectBigBets } from '../../src/watch/detect/detect-bets.js';
import { entrantIdOf } from '../../src/watch/detect/detect-context.js';
import { DEFAULT_MARKET_THRESHOLDS } from '../../src/watch/detect/market-thresholds.js';
import type { RaceDocument } from '../../src/watch/track/normalise.js';
import { BIG_BETS, openWithBets } from './real-variants.js';
import { change, type Loose, realPayload } from './support.js';

const RUNNERS = (realPayload().data.runners ?? []).map((r) => ({
  entrant_id: r.entrant_id,
  runner_number: r.runner_number,
  name: r.name,
  barrier: r.barrier,
}));
const FIELD = new Set(RUNNERS.map((r) => r.entrant_id));
const race: RaceContext = {
  raceId: 'r1',
  meetingId: 'm1',
  meetingName: 'Awapuni Synthetic',
  raceNumber: 1,
  raceName: 'PRYDA HANDICAP 1700',
  advertisedStart: '2025-07-17T00:50:00.000Z',
  status: 'Open',
};
const uuidBytes = (id: string) =>
  (id.replace(/-/g, '').match(/../g) ?? []).map((h) => Number.parseInt(h, 16));

/** The big bets a race with the real field reports when `bets` are listed after an empty list. */
function reported(bets: Loose[]): BigBetData[] {
  const runners = Object.fromEntries(RUNNERS.map((r) => [r.entrant_id, r]));
  const doc = (big: Loose[]) => ({ race: {}, runners, big_bets: big }) as unknown as RaceDocument;
  return detectBigBets(doc([]), doc(bets), race, DEFAULT_MARKET_THRESHOLDS).map((e) => e.data as BigBetData);
}

describe('bet rows in the event schema', () => {
  it('keeps every real and official bet shape', () => {
    const parsed = eventResponseSchema.parse(JSON.parse(JSON.stringify(openWithBets())));
    expect(parsed.droppedRows).toBeUndefined();
    expect((parsed.data as Loose).big_bets).toEqual(BIG_BETS);
  });

  it('drops a malformed bet alone, and says where and why', () => {
    const bad = change(openWithBets(), (d) => {
      d.big_bets[1].stake = '1500';
    });
    const parsed = eventResponseSchema.parse(JSON.parse(JSON.stringify(bad)));
    expect(parsed.droppedRows).toEqual([
      {
        path: 'data.big_bets[1]',
        code: 'bad_row',
        reason: 'stake: Invalid input: expected number, received string',
      },
    ]);
    expect((parsed.data as Loose).big_bets).toEqual(BIG_BETS.filter((_, i) => i !== 1));
  });
});

describe('entrantIdOf', () => {
  it('reads a uuid string or its 16 bytes, and nothing else', () => {
    const id = '7346bd2c-c03d-41c3-bcb9-2b085c4e72cd';
    expect(entrantIdOf(id.toUpperCase())).toBe(id);
    expect(entrantIdOf(uuidBytes(id))).toBe(id);
    expect(entrantIdOf([1, 2, 3])).toBeNull();
    expect(entrantIdOf([...uuidBytes(id).slice(1), 256])).toBeNull();
    expect(entrantIdOf('Ruji')).toBeNull();
    expect(entrantIdOf(4)).toBeNull();
  });
});

describe('market.big_bet on meeting-wide bets', () => {
  it("does not take a leg on another meeting's race 1 for this race", () => {
    const elsewhere = structuredClone(BIG_BETS.find((b) => b.title === 'Fixed Win')!);
    elsewhere.legs[0].race.meeting_name = 'Te Rapa';
    expect(reported([elsewhere])).toEqual([]);
  });

  // Legs on race 1 (this race), 0 (unknown) or another race, of this meeting or another; entrants of the
  // field or outside it, as a uuid string or bytes; singles with null selections or selection lists.
  const OUTSIDE = ['2e20548c-6ab0-56e7-a2ec-cfff4cc415b1', 'f738703c-e608-5815-a209-6fdb77af8e03'];
  const entrant = fc.record({
    id: fc.constantFrom(...FIELD, ...OUTSIDE),
    bytes: fc.boolean(),
    number: fc.integer({ min: 1, max: 12 }),
  });
  const idOf = (e: { id: string; bytes: boolean }) => (e.bytes ? uuidBytes(e.id) : e.id);
  const leg = fc.record({
    raceNumber: fc.constantFrom(0, 1, 2, 4),
    meeting: fc.constantFrom('Awapuni Synthetic', 'Te Rapa'),
    single: fc.boolean(),
    entrants: fc.array(entrant, { minLength: 1, maxLength: 3 }),
  });
  const betArb = fc.array(leg, { minLength: 1, maxLength: 4 }).map((legs) => ({
    title: 'Multi',
    description: [],
    stake: 5000,
    place_time: '2025-07-17T00:40:00Z',
    place_odds: 0,
    legs: legs.map((l) => ({
      race: {
        meeting_name: l.meeting,
        race_name: l.raceNumber === 0 ? '' : `Race ${l.raceNumber}`,
        race_number: l.raceNumber,
        product_type_name: 'Multi',
        ...(l.single
          ? { entrant_id: idOf(l.entrants[0]!), entrant_name: 'X', entrant_number: l.entrants[0]!.number }
          : {}),
      },
      selections: l.single
        ? null
        : l.entrants.map((e, i) => ({
            position: i + 1,
            entrants: [{ entrant_id: idOf(e), entrant_name: 'X', entrant_number: e.number }],
          })),
    })),
  }));

  it('names a runner only for a leg on this race whose entrant id is a runner, and reports the bet only where a leg may be', () => {
    fc.assert(
      fc.property(betArb, (bet) => {
        const events = reported([bet]);
        const isThisRace = (l: Loose) =>
          l.race.race_number === 1 && l.race.meeting_name === 'Awapuni Synthetic';
        const mayBeHere = bet.legs.some((l) => isThisRace(l) || l.race.race_number === 0);
        expect(events.length).toBe(mayBeHere ? 1 : 0);
        for (const e of events) {
          expect(e.legs.map((l) => l.thisRace)).toEqual(bet.legs.map(isThisRace));
          expect(e.selections).toEqual(e.legs.filter((l) => l.thisRace).flatMap((l) => l.selections));
          for (const l of e.legs) {
            for (const s of l.selections) {
              expect(s.inField).toBe(l.thisRace && s.entrantId !== null && FIELD.has(s.entrantId));
            }
          }
        }
      }),
      { numRuns: 300, seed: 22 },
    );
  });
});
