/**
 * The Redis log keeps a stream's document as a checkpoint (`{S}:doc`) and the patches since it (`{S}:patches`)
 * instead of writing the whole document on every change, and rebuilds the head from them, as the SQLite log
 * does (`sqlite-checkpoints.test.ts`): a reader gets the document that was appended.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedisEventLog } from '../../src/store/redis/redis-event-log.js';
import { diffDocuments } from '../../src/watch/track/diff.js';
import type { normaliseEvent } from '../../src/watch/track/normalise.js';
import { resumedState, trackRace } from '../../src/watch/track/track-race.js';
import { describeWithRedis, suiteRedis } from '../support/redis.js';
import { mutate, mutationArb } from '../watch/mutations.js';
import { realPayload } from '../watch/support.js';
import { event, patch, snapshot, T0 } from './entry-builders.js';

describeWithRedis('Redis checkpoints', (url) => {
  const { redis, runPrefix } = suiteRedis(url);
  let logs = 0;
  const nextPrefix = () => `${runPrefix}${++logs}:`;

  /** What the store holds for stream r1: the checkpoint's value of `v` and the patches pushed since. */
  const stored = async (prefix: string) => ({
    checkpoint: JSON.parse((await redis.get(`${prefix}{r1}:doc`)) ?? 'null')?.v,
    patches: await redis.llen(`${prefix}{r1}:patches`),
  });

  describe('redis checkpoints', () => {
    it('writes the document at a snapshot and every N patches, and rebuilds the head between', async () => {
      const prefix = nextPrefix();
      const log = createRedisEventLog({ redis, prefix, checkpointEvery: 3 });
      await log.append('r1', {
        entries: [snapshot({ v: 0, list: [] })],
        document: { v: 0, list: [] },
        now: T0,
      });
      expect(await stored(prefix)).toEqual({ checkpoint: 0, patches: 0 });
      const seen = [];
      for (let v = 1; v <= 7; v++) {
        await log.append('r1', {
          entries: [patch([{ op: 'replace', path: '/v', value: v }]), event('tick')],
          document: { v, list: [] },
          now: T0,
        });
        seen.push(await stored(prefix));
        expect(await log.head('r1')).toMatchObject({ documentSeq: 2 * v, document: { v, list: [] } });
      }
      // The third and sixth patches are checkpoints; the others are pushed onto the list.
      expect(seen).toEqual([
        { checkpoint: 0, patches: 1 },
        { checkpoint: 0, patches: 2 },
        { checkpoint: 3, patches: 0 },
        { checkpoint: 3, patches: 1 },
        { checkpoint: 3, patches: 2 },
        { checkpoint: 6, patches: 0 },
        { checkpoint: 6, patches: 1 },
      ]);
      const again = createRedisEventLog({ redis, prefix, checkpointEvery: 3 });
      expect(await again.head('r1')).toMatchObject({
        seq: 15,
        documentSeq: 14,
        document: { v: 7, list: [] },
      });
    });

    it('checkpoints at once a patch whose replay could order keys differently', async () => {
      const prefix = nextPrefix();
      const log = createRedisEventLog({ redis, prefix, checkpointEvery: 100 });
      const first = { a: 1, c: 3 };
      const second = { a: 1, b: 2, c: 3 }; // replaying add /b would give {a, c, b}
      await log.append('r1', { entries: [snapshot(first)], document: first, now: T0 });
      await log.append('r1', {
        entries: [{ kind: 'patch', ops: diffDocuments(first, second) }],
        document: second,
        now: T0,
      });
      expect(await redis.llen(`${prefix}{r1}:patches`)).toBe(0);
      expect(JSON.stringify((await log.head('r1')).document)).toBe('{"a":1,"b":2,"c":3}');
      const third = { a: 1, b: 2, c: 3, d: 4 }; // added last, where replay puts it: no checkpoint
      await log.append('r1', {
        entries: [{ kind: 'patch', ops: diffDocuments(second, third) }],
        document: third,
        now: T0,
      });
      expect(await redis.llen(`${prefix}{r1}:patches`)).toBe(1);
      expect(JSON.stringify((await log.head('r1')).document)).toBe('{"a":1,"b":2,"c":3,"d":4}');
    });

    it('keeps the rebuilt head through a window trim and drops checkpoint and patches when retention forgets', async () => {
      const prefix = nextPrefix();
      const log = createRedisEventLog({ redis, prefix, window: 2, checkpointEvery: 100 });
      await log.append('r1', { entries: [snapshot({ v: 0 })], document: { v: 0 }, now: T0 });
      await log.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: 1 }])],
        document: { v: 1 },
        now: T0,
      });
      for (let i = 0; i < 3; i++) await log.append('r1', { entries: [event('tick')], now: T0 });
      expect(await log.head('r1')).toMatchObject({ seq: 5, documentSeq: 2, document: { v: 1 } });
      const at = new Date(T0.getTime() + 1);
      expect(await log.expire({ settledBefore: at, forgetBefore: at })).toEqual({ settled: 0, forgotten: 1 });
      expect(await redis.exists(`${prefix}{r1}:doc`, `${prefix}{r1}:patches`)).toBe(0);
      expect(await log.head('r1')).toMatchObject({ seq: 5, documentSeq: 0, document: undefined });
      await log.append('r1', { entries: [snapshot({ v: 9 })], document: { v: 9 }, now: T0 });
      expect(await log.head('r1')).toMatchObject({ seq: 6, documentSeq: 6, document: { v: 9 } });
    });

    // Member order is not a change (no op): deep equality, as on SQLite.
    it('gives back the head document of a real race through any run of changes', async () => {
      const base = realPayload();
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.array(mutationArb, { maxLength: 3 }), { minLength: 1, maxLength: 8 }),
          fc.integer({ min: 1, max: 4 }),
          async (steps, checkpointEvery) => {
            const prefix = nextPrefix();
            const log = createRedisEventLog({ redis, prefix, checkpointEvery });
            let payload = base;
            let prev: ReturnType<typeof normaliseEvent> | undefined;
            for (const step of steps) {
              payload = mutate(payload, step);
              const result = trackRace(prev && resumedState(prev), payload, T0.getTime());
              if (result.outcome.kind !== 'changed' || !result.state) continue;
              await log.append('r1', { entries: result.entries, document: result.state.document, now: T0 });
              prev = result.state.document;
              expect((await log.head('r1')).document).toEqual(prev);
            }
          },
        ),
        { numRuns: 10 },
      );
    });
  });
});
