/**
 * The unchanged-payload skip, through the real racing client (a fake fetch serves the bodies) and the real
 * race pipeline on a memory log: a payload is answered without processing only when its data is
 * byte-identical to the data the race's state was last built from (the digest the tracker keeps in it).
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock } from '../../src/clock.js';
import { createMemoryEventLog } from '../../src/store/memory-event-log.js';
import { createRacingClient } from '../../src/upstream/client.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { EventResponse } from '../../src/upstream/schemas.js';
import { createUnchangedSkip } from '../../src/watch/fetch/unchanged-skip.js';
import { createRacePipeline } from '../../src/watch/track/race-pipeline.js';
import type { RaceStateLimits } from '../../src/watch/track/race-states.js';

const real = JSON.parse(
  readFileSync(new URL('../fixtures/real/event-final-awapuni.json', import.meta.url), 'utf8'),
);
const RACE = real.data.race.event_id as string;

/**
 * Variants of the real payload's data: 0 as captured, 1 and 2 with a price moved, 3 without runners (rejected),
 * 4 with its last runner missing (a disappearance, held until confirmed).
 */
function variant(n: number): unknown {
  const data = structuredClone(real.data);
  if (n === 1) data.runners[0].odds.fixed_win = 4.4;
  if (n === 2) data.runners[1].odds.fixed_win = 9.5;
  if (n === 3) data.runners = null;
  if (n === 4) data.runners.pop();
  return data;
}
const START = Date.parse('2025-07-17T00:00:00Z');
/** A body generated `stamp` ms after START. */
const bodyOf = (n: number, stamp: number, raceId = RACE) => {
  const data = variant(n) as { race: { event_id: string } };
  data.race.event_id = raceId;
  return JSON.stringify({
    header: { ...real.header, generated_time: new Date(START + stamp).toISOString() },
    params: real.params,
    data,
  });
};

/** Room for one race's state (about 200 kB of document JSON here), not two. */
const ONE_RACE = 300_000;

/** `meanwhile` runs while a body is on its way (after the skip read the race's digest). */
function harness(limits?: RaceStateLimits, meanwhile?: () => Promise<unknown>) {
  const clock = createManualClock(START);
  const bodies: string[] = [];
  const client = createRacingClient({
    baseUrl: 'http://upstream/affiliates/v1/racing',
    limiter: createRateLimiter({ maxPerMinute: 10_000, clock }),
    clock,
    fetch: async () => {
      const body = bodies.shift();
      await meanwhile?.();
      return new Response(body, { status: 200 });
    },
  });
  const log = createMemoryEventLog();
  const pipeline = createRacePipeline({
    log,
    bus: createMemoryBus(),
    clock,
    logger: pino({ level: 'silent' }),
    limits,
  });
  const processed: EventResponse[] = [];
  const process = (raceId: string, payload: EventResponse, digest?: string) => {
    processed.push(payload);
    return pipeline.process(raceId, payload, digest);
  };
  const skip = createUnchangedSkip(client, pipeline);
  const fetch = (n: number, stamp: number, raceId = RACE) => {
    bodies.push(bodyOf(n, stamp, raceId));
    return skip.fetch(raceId, {}, process);
  };
  return { fetch, processed, skip, log, clock, pipeline };
}

describe('unchanged-payload skip', () => {
  it('answers a payload whose data did not change from memory, whatever its envelope says', async () => {
    const h = harness();
    expect(await h.fetch(0, 1)).toMatchObject({ kind: 'changed', status: 'Final', dividends: 'final' });
    expect(await h.fetch(0, 2)).toEqual({ kind: 'unchanged', status: 'Final', dividends: 'final' });
    expect(await h.fetch(1, 3)).toMatchObject({ kind: 'changed' });
    expect(await h.fetch(1, 4)).toMatchObject({ kind: 'unchanged' });
    expect(h.processed).toHaveLength(2);
    expect(h.skip.counts()).toEqual({ skipped: 2, processed: 2 });
    expect((await h.log.head(RACE)).seq).toBeGreaterThan(1);
  });

  it('processes the repeats of a payload whose claims wait for confirmation, then skips once they are settled', async () => {
    const h = harness();
    const runners = async () => ((await h.log.head(RACE)).document as { runners: object }).runners;
    await h.fetch(0, 1);
    const before = Object.keys(await runners()).length;
    expect(await h.fetch(4, 2)).toMatchObject({ kind: 'unchanged', pending: true });
    await h.clock.advance(10_000);
    expect(await h.fetch(4, 3)).toMatchObject({ kind: 'unchanged', pending: true });
    await h.clock.advance(15_000);
    expect(await h.fetch(4, 4)).toMatchObject({ kind: 'changed' });
    expect(Object.keys(await runners())).toHaveLength(before - 1);
    expect(await h.fetch(4, 5)).toMatchObject({ kind: 'unchanged' });
    expect(h.processed).toHaveLength(4);
    expect(h.skip.counts()).toEqual({ skipped: 1, processed: 4 });
  });

  it('forgets the digest with the state: a race evicted is processed in full and gives no entry', async () => {
    const h = harness({ maxBytes: ONE_RACE });
    await h.fetch(0, 1);
    await h.fetch(0, 2, 'other-race');
    const seq = (await h.log.head(RACE)).seq;
    expect(await h.fetch(0, 3)).toEqual({ kind: 'unchanged', status: 'Final', dividends: 'final' });
    expect(h.skip.counts()).toEqual({ skipped: 0, processed: 3 });
    expect((await h.log.head(RACE)).seq).toBe(seq);
    expect(await h.fetch(0, 4)).toMatchObject({ kind: 'unchanged' });
    expect(h.skip.counts()).toEqual({ skipped: 1, processed: 3 });
  });

  it('answers a repeat from the log when the race was evicted while the payload was on its way', async () => {
    let evict = false;
    const other = () =>
      evict ? h.pipeline.process('other-race', JSON.parse(bodyOf(0, 1, 'other-race'))) : Promise.resolve();
    const h = harness({ maxBytes: ONE_RACE }, other);
    await h.fetch(0, 1);
    evict = true;
    expect(await h.fetch(0, 2)).toEqual({ kind: 'unchanged', status: 'Final', dividends: 'final' });
    expect(h.skip.counts()).toEqual({ skipped: 1, processed: 1 });
    expect(h.pipeline.cached().races).toBe(1);
    expect((await h.log.head(RACE)).seq).toBe(1);
  });

  it('processes again after a rejected payload, even when the data repeats', async () => {
    const h = harness();
    await h.fetch(0, 1);
    expect(await h.fetch(3, 2)).toMatchObject({ kind: 'rejected' });
    expect(await h.fetch(3, 3)).toMatchObject({ kind: 'rejected' });
    expect(await h.fetch(0, 4)).toMatchObject({ kind: 'unchanged' });
    expect(h.processed).toHaveLength(4);
  });

  it('never skips a payload whose data differs from the data last taken', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 12 }),
        async (seq) => {
          const h = harness();
          let taken: number | undefined;
          for (const [i, n] of seq.entries()) {
            const before = h.processed.length;
            const outcome = await h.fetch(n, i);
            const wasProcessed = h.processed.length > before;
            // Skipped exactly when the data is the data last taken.
            expect(wasProcessed).toBe(n !== taken);
            taken = outcome.kind === 'rejected' ? undefined : n;
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});
