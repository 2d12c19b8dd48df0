import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock } from '../../src/clock.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { jsonSizeFloor, normaliseEvent } from '../../src/watch/track/normalise.js';
import { createRacePipeline } from '../../src/watch/track/race-pipeline.js';
import {
  createRaceStates,
  isSettled,
  SETTLED_GRACE_MS,
  stateBytes,
} from '../../src/watch/track/race-states.js';
import { resumedState } from '../../src/watch/track/track-race.js';
import { change, type Loose, openPayload, RACE_ID, realPayload, runner } from './support.js';

const logger = pino({ level: 'silent' });
const OTHER_ID = 'other-race';

/** The same race under another id (the pipeline refuses a payload about another race than asked). */
const asOther = (payload: EventResponse) =>
  change(payload, (d) => {
    d.race.event_id = OTHER_ID;
  });

/** A race's life, each payload generated at the instant it is processed: odds, a price withdrawn, results. */
function life(): EventResponse[] {
  const open = change(openPayload(), (d) => {
    for (const r of d.runners) r.favourite = false;
  });
  const firmer = change(open, (d) => {
    runner(d, 1).odds.fixed_win = 4.2;
  });
  // A withdrawn price is held until a second payload confirms it (trust.ts), twice over.
  const withdrawn = change(firmer, (d) => {
    runner(d, 4).odds.fixed_win = null;
    runner(d, 1).odds.fixed_win = 4;
  });
  const scratched = change(withdrawn, (d) => {
    const r = runner(d, 3) as Loose;
    r.is_scratched = true;
    r.scratch_time = 1752712000;
  });
  const closed = change(scratched, (d) => {
    d.race.status = 'Closed';
  });
  return [open, firmer, withdrawn, withdrawn, withdrawn, scratched, closed, closed, realPayload()];
}

/** Room for one race document (about 200 kB of JSON here), not two. */
const ONE_RACE = 300_000;

/**
 * Runs `payloads` 10 s apart (each generated when processed) and returns what the log holds. Before each
 * step in `other`, another race is processed: with room for one race, it evicts this one.
 */
async function run(limits: { maxBytes?: number }, payloads: EventResponse[], other: number[] = []) {
  const log = createMemoryEventLog();
  const clock = createManualClock(Date.parse('2025-07-17T00:30:00Z'));
  const pipeline = createRacePipeline({ log, bus: createMemoryBus(), clock, logger, limits });
  const stamp = (payload: EventResponse) => ({
    ...payload,
    header: { ...payload.header, generated_time: new Date(clock.now()).toISOString() },
  });
  const outcomes = [];
  for (const [i, payload] of payloads.entries()) {
    await clock.advance(10_000);
    if (other.includes(i)) await pipeline.process(OTHER_ID, stamp(asOther(openPayload())));
    outcomes.push((await pipeline.process(RACE_ID, stamp(payload))).kind);
  }
  const read = await log.read(RACE_ID, 0);
  if (!read.ok) throw new Error('read failed');
  return { outcomes, entries: read.entries, pipeline, clock };
}

const shape = (entries: LogEntry[]) =>
  entries.map((e) =>
    e.kind === 'event'
      ? { seq: e.seq, type: e.event.type, data: e.event.data }
      : { seq: e.seq, kind: e.kind },
  );

describe('race state cache', () => {
  it('calls a race settled once Final with Final dividends, or Abandoned', () => {
    const final = realPayload();
    const doc = (p: EventResponse) => ({ race: p.data.race, dividends: {} }) as Loose;
    expect(isSettled(doc(openPayload()))).toBe(false);
    expect(isSettled({ ...doc(final), dividends: { a: { status: 'Interim' } } })).toBe(false);
    expect(isSettled({ ...doc(final), dividends: { a: { status: 'Final' } } })).toBe(true);
    const abandoned = change(final, (d) => {
      d.race.status = 'Abandoned';
    });
    expect(isSettled(doc(abandoned))).toBe(true);
  });

  it('keeps the least recently used races within its byte bound', () => {
    const clock = createManualClock(0);
    const state = resumedState({ race: { status: 'Open' }, pad: 'x'.repeat(100) } as Loose);
    const bytes = stateBytes(state);
    const states = createRaceStates(clock, { maxBytes: bytes * 3 });
    for (const id of ['a', 'b', 'c']) states.set(id, state);
    states.get('a');
    states.set('d', state);
    expect(states.stats()).toEqual({ races: 3, bytes: bytes * 3 });
    expect(['a', 'b', 'c', 'd'].filter((id) => states.get(id))).toEqual(['a', 'c', 'd']);
  });
  it('sizes a state by its document, its trust state and its money memory', () => {
    const document = { race: { status: 'Open' }, pad: 'x'.repeat(100) } as Loose;
    const plain = resumedState(document);
    const claim = { seen: 'absent', count: 1, since: 0 };
    const money = new Map([
      [
        'e-1',
        [
          { at: 1, share: 2 },
          { at: 2, share: 3 },
        ],
      ],
    ]);
    const busy = { ...plain, trust: { pending: { '/runners/1': claim } }, money, digest: 'abc' };
    expect(stateBytes(plain)).toBe(JSON.stringify(document).length + JSON.stringify(plain.trust).length);
    expect(stateBytes(busy)).toBe(
      JSON.stringify(document).length + JSON.stringify(busy.trust).length + 'e-1'.length + 2 * 32 + 3,
    );
  });
  it('sizes a normalised document by the size floor counted while it was copied, within 1 % of its JSON', () => {
    const document = normaliseEvent(realPayload());
    const state = resumedState(document);
    const floor = jsonSizeFloor(document) as number;
    const rest = JSON.stringify(state.trust).length + (state.favourite?.length ?? 0);
    expect(stateBytes(state)).toBe(floor + rest);
    expect(floor).toBeLessThanOrEqual(JSON.stringify(document).length);
    expect(floor).toBeGreaterThan(0.99 * JSON.stringify(document).length);
  });
});

describe('race pipeline: memory released', () => {
  it('releases a settled race after its grace period, and its document is then read from the log', async () => {
    const { pipeline, clock, entries } = await run({}, life());
    expect(pipeline.cached().races).toBe(1);
    // Another race's step just before the grace ends keeps the settled one; the first after it lets it go.
    await clock.advance(SETTLED_GRACE_MS - 10_000);
    await pipeline.process(OTHER_ID, asOther(openPayload()));
    expect(pipeline.cached().races).toBe(2);
    await clock.advance(10_001);
    await pipeline.process(OTHER_ID, asOther(openPayload()));
    expect(pipeline.cached().races).toBe(1);
    const last = entries.findLast((e) => e.kind !== 'event');
    expect(await pipeline.document(RACE_ID)).toEqual(
      last?.kind === 'snapshot' ? last.document : expect.anything(),
    );
    expect(await pipeline.process(RACE_ID, realPayload())).toMatchObject({ kind: 'unchanged' });
  });

  it('gives exactly the same entries when a live race is evicted by another between its changes', async () => {
    // Evicted before the first change, after the withdrawn price was confirmed, and before the results.
    const evictions = [1, 5, 8];
    const bounded = await run({ maxBytes: ONE_RACE }, life(), evictions);
    const unbounded = await run({}, life(), evictions);
    expect(bounded.pipeline.cached().races).toBe(1);
    expect(unbounded.pipeline.cached().races).toBe(2);
    expect(bounded.outcomes).toEqual(unbounded.outcomes);
    expect(shape(bounded.entries)).toEqual(shape(unbounded.entries));
    const types = bounded.entries.flatMap((e) => (e.kind === 'event' ? [e.event.type] : []));
    for (const type of ['race.favourite_changed', 'runner.scratched', 'race.results']) {
      expect(types.filter((t) => t === type)).toHaveLength(1);
    }
  });

  it('makes no event the unbounded run does not, and none twice, when evicted after every step', async () => {
    // Held claims start afresh after each eviction (trust.ts's restart path): they are delayed, never invented.
    const bounded = await run({ maxBytes: 1 }, life());
    const unbounded = await run({}, life());
    expect(bounded.pipeline.cached()).toEqual({ races: 0, bytes: 0 });
    const events = (entries: LogEntry[]) =>
      entries.flatMap((e) => (e.kind === 'event' ? [JSON.stringify([e.event.type, e.event.data])] : []));
    const expected = events(unbounded.entries);
    for (const event of events(bounded.entries)) {
      expect(expected).toContain(event);
      expected.splice(expected.indexOf(event), 1);
    }
    // What it lacks is the withdrawn price (still held) and what follows from it: the favourite change and
    // the price's later return, reported by the unbounded run from null.
    expect(expected.map((e) => JSON.parse(e)[0])).toEqual([
      'odds.changed',
      'race.favourite_changed',
      'odds.changed',
    ]);
    expect(expected[0]).toContain('"direction":"withdrawn"');
  });

  it('drops a payload older than the log after an eviction, and answers a repeat as unchanged', async () => {
    const log = createMemoryEventLog();
    const clock = createManualClock(Date.parse('2025-07-17T00:30:00Z'));
    const pipeline = createRacePipeline({
      log,
      bus: createMemoryBus(),
      clock,
      logger,
      limits: { maxBytes: 1 },
    });
    const at = (payload: EventResponse, time: string) => ({
      ...payload,
      header: { ...payload.header, generated_time: time },
    });
    const firmer = change(openPayload(), (d) => {
      runner(d, 1).odds.fixed_win = 4.2;
    });
    await pipeline.process(RACE_ID, at(openPayload(), '2025-07-17T00:29:59Z'));
    await pipeline.process(RACE_ID, at(firmer, '2025-07-17T00:30:00Z'));
    await clock.advance(60_000);
    expect(await pipeline.process(RACE_ID, at(openPayload(), '2025-07-17T00:29:59.5Z'))).toMatchObject({
      kind: 'rejected',
      code: 'stale',
    });
    expect(await pipeline.process(RACE_ID, at(firmer, '2025-07-17T00:31:00Z'))).toMatchObject({
      kind: 'unchanged',
    });
    expect((await log.head(RACE_ID)).seq).toBe(3);
  });
});
