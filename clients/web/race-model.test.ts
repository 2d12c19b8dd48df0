import { readFileSync } from 'node:fs';
import { formatDividendLine } from '@racewire/client/dividends';
import { describe, expect, it } from 'vitest';
import { eventResponseSchema } from '../../src/upstream/schemas.js';
import { normaliseEvent } from '../../src/watch/track/normalise.js';
import { oddsMoves, raceModel, riderLabel } from './race-model.js';

const payload = eventResponseSchema.parse(
  JSON.parse(
    readFileSync(new URL('../../test/fixtures/real/event-final-awapuni.json', import.meta.url), 'utf8'),
  ),
);
const doc = normaliseEvent(payload);
const raceId = doc.race.event_id;

describe('the race model read from a real normalised document', () => {
  const model = raceModel(raceId, doc);

  it('reads the race header', () => {
    expect(model).toMatchObject({
      raceId,
      meeting: 'Awapuni Synthetic',
      number: 1,
      status: 'Final',
      code: 'T',
      distance: 1700,
      advertisedStart: doc.race.advertised_start * 1000,
    });
  });

  it('lists runners by number with rider, trainer and all four prices', () => {
    expect(model.runners.map((r) => r.number)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(model.runners[0]).toMatchObject({
      name: 'Tickford',
      barrier: 7,
      rider: 'Kate Hercock',
      trainer: 'Richard French',
      scratched: false,
      odds: { fixed_win: 5, fixed_place: 1.8, pool_win: 4.4, pool_place: 1.5 },
    });
  });

  it('lists results by position with margins to the winner (none for the winner)', () => {
    expect(model.results.map((r) => [r.position, r.number, r.name, r.margin])).toEqual([
      [1, 2, 'Frosbie', null],
      [2, 4, 'Ruji', '0.4L'],
      [3, 7, 'Ballinran', '2.3L'],
      [4, 6, 'Keepitinyourwallet', '2.3L'],
      [5, 5, 'Starpello', '4.3L'],
      [6, 1, 'Tickford', '4.5L'],
      [7, 8, 'Flor De Cana', '6.5L'],
      [8, 3, 'Dealers Choice', '7L'],
    ]);
  });

  it("shows each pool's Final rows, Win first, Place in finishing order (the Interim rows superseded)", () => {
    expect(model.dividends.map((d) => `${formatDividendLine(d)} ${d.status}`)).toEqual([
      'Win #2 $6.60 Final',
      'Place #2 $1.70, #4 $1.90, #7 $3.70 Final',
      'Quinella 2-4 $13.70 Final',
      'Trifecta 2-4-7 $396.60 Final',
      'First Four 2-4-7-6 $1,350.40 Final',
    ]);
  });

  it('keeps the Interim rows of a pool with no Final row yet, in its place in the order', () => {
    const dividends = Object.fromEntries(
      Object.entries(doc.dividends ?? {}).filter(
        ([, d]) => !(d.product_name === 'Pool Win' && d.status === 'Final'),
      ),
    );
    const lines = raceModel(raceId, { ...doc, dividends }).dividends;
    expect(lines.map((d) => `${d.label} ${d.status}`)).toEqual([
      'Win Interim',
      'Place Final',
      'Quinella Final',
      'Trifecta Final',
      'First Four Final',
    ]);
  });
});

describe('reading untrusted documents', () => {
  it('gives an empty model for something that is not a race document', () => {
    for (const junk of [null, 42, 'x', [], { runners: 'no' }]) {
      expect(raceModel('r', junk)).toMatchObject({
        raceId: 'r',
        status: 'Unknown',
        runners: [],
        results: [],
        dividends: [],
      });
    }
  });

  it('shows a scratched runner as scratched and keeps runners with bad fields', () => {
    const model = raceModel('r', {
      race: { status: 'Open' },
      runners: {
        a: { name: 'A', runner_number: 2, is_scratched: true, odds: null },
        b: { runner_number: 'x' },
      },
    });
    expect(model.runners.map((r) => [r.entrantId, r.number, r.name, r.scratched])).toEqual([
      ['a', 2, 'A', true],
      ['b', null, '(unnamed)', false],
    ]);
  });

  it('labels the rider column by racing code and shows the trainer for greyhounds', () => {
    expect([riderLabel('T'), riderLabel('H'), riderLabel('G'), riderLabel(null)]).toEqual([
      'Jockey',
      'Driver',
      'Trainer',
      'Jockey',
    ]);
    const dogs = raceModel('r', { race: { type: 'G' }, runners: { a: { trainer_name: 'Kim', jockey: '' } } });
    expect(dogs.runners[0]?.rider).toBe('Kim');
  });
});

describe('odds moves', () => {
  const at = (win: number | null, place: number | null) =>
    raceModel('r', {
      race: {},
      runners: { a: { runner_number: 1, odds: { fixed_win: win, fixed_place: place } } },
    });

  it('marks a lengthened price up and a shortened one down', () => {
    expect([...oddsMoves(at(5, 2), at(6, 1.8))]).toEqual([
      ['a/fixed_win', 'up'],
      ['a/fixed_place', 'down'],
    ]);
  });

  it('sees no move on the first document, a price appearing or vanishing, or another race', () => {
    expect(oddsMoves(undefined, at(5, 2)).size).toBe(0);
    expect(oddsMoves(at(null, 2), at(5, null)).size).toBe(0);
    expect(oddsMoves({ ...at(5, 2), raceId: 'other' }, at(6, 2)).size).toBe(0);
  });
});
