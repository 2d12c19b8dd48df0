/**
 * The Redis log keeps a stream's document as a checkpoint (`{S}:doc`) and the patches since it (`{S}:patches`)
 * instead of writing the whole document on every change, and rebuilds the head from them, as the SQLite log
 * does (`sqlite-checkpoints.test.ts`): a reader gets the document that was appended.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createRedisEventLog, valueText } from '../../src/store/redis/redis-event-log.js';
import { unpackDocument } from '../../src/store/sqlite/checkpoints.js';
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
    checkpoint: JSON.parse(valueText((await redis.getBuffer(`${prefix}{r1}:doc`)) ?? Buffer.from('null')))?.v,
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

    it('stores checkpoints and entries packed, and the feed text', async () => {
      const prefix = nextPrefix();
      const log = createRedisEventLog({ redis, prefix, checkpointEvery: 100 });
      const doc = { runners: Array.from({ length: 50 }, (_, i) => ({ name: `runner ${i}`, odds: 2 + i })) };
      await log.append('r1', { entries: [snapshot(doc), event('tick')], document: doc, now: T0 });
      const ops = [{ op: 'replace' as const, path: '/runners/0/odds', value: 3 }];
      const next = structuredClone(doc);
      next.runners[0]!.odds = 3;
      await log.append('r1', { entries: [patch(ops)], document: next, now: T0 });
      // The checkpoint: a 0 byte, then brotli of the document's JSON.
      const checkpoint = (await redis.getBuffer(`${prefix}{r1}:doc`))!;
      expect(checkpoint[0]).toBe(0);
      expect(JSON.parse(unpackDocument(checkpoint.subarray(1)))).toEqual(doc);
      expect(checkpoint.length).toBeLessThan(JSON.stringify(doc).length / 4);
      const rows = await redis.xrangeBuffer(`${prefix}{r1}:log`, '-', '+');
      expect(rows.map(([, f]) => [f[0]!.toString(), f[1]![0]])).toEqual([
        ['z', 0],
        ['z', 0],
        ['z', 0],
      ]);
      expect(JSON.parse(valueText(rows[0]![1][1]!))).toMatchObject({
        kind: 'snapshot',
        seq: 1,
        document: doc,
      });
      expect(JSON.parse(valueText(rows[1]![1][1]!))).toMatchObject({ kind: 'event', seq: 2 });
      // The feed's copy of the event is text: its reader parses it.
      const feed = await redis.xrange(`${prefix}feed`, '-', '+');
      expect(feed.map(([, f]) => [f[0], JSON.parse(f[1]!).seq])).toEqual([['e', 2]]);
      expect(JSON.parse(valueText(rows[2]![1][1]!))).toMatchObject({ kind: 'patch', seq: 3, base: 1, ops });
      const read = await log.read('r1', 0);
      expect(read.ok && read.entries.map((e) => [e.kind, e.seq])).toEqual([
        ['snapshot', 1],
        ['event', 2],
        ['patch', 3],
      ]);
      expect(read.ok && read.entries[0]).toMatchObject({ document: doc });
      expect((await log.head('r1')).document).toEqual(next);
    });

    it('reads what the previous layout wrote as text: checkpoint, snapshot and patch entries', async () => {
      const prefix = nextPrefix();
      const epoch = 'epoch-old';
      const base = { stream: 'r1', timestamp: T0.toISOString(), epoch };
      const doc = { v: 0 };
      const ops = [{ op: 'replace', path: '/v', value: 1 }];
      await redis
        .multi()
        .set(`${prefix}epoch`, epoch)
        .hset(`${prefix}{r1}:head`, {
          epoch,
          seq: 3,
          documentSeq: 3,
          patchesSince: 1,
          updatedAt: T0.getTime(),
        })
        .set(`${prefix}{r1}:doc`, JSON.stringify(doc))
        .rpush(`${prefix}{r1}:patches`, JSON.stringify(ops))
        .xadd(
          `${prefix}{r1}:log`,
          '1-0',
          'e',
          JSON.stringify({ kind: 'snapshot', seq: 1, ...base, document: doc }),
        )
        .xadd(
          `${prefix}{r1}:log`,
          '2-0',
          'e',
          JSON.stringify({ kind: 'event', seq: 2, ...base, event: { type: 'x' } }),
        )
        .xadd(
          `${prefix}{r1}:log`,
          '3-0',
          'e',
          JSON.stringify({ kind: 'patch', seq: 3, ...base, base: 1, ops }),
        )
        .sadd(`${prefix}streams`, 'r1')
        .exec();
      const log = createRedisEventLog({ redis, prefix });
      expect(await log.head('r1')).toEqual({
        stream: 'r1',
        epoch,
        seq: 3,
        documentSeq: 3,
        document: { v: 1 },
      });
      const read = await log.read('r1', 0);
      expect(read.ok && read.entries.map((e) => e.kind)).toEqual(['snapshot', 'event', 'patch']);
      expect(read.ok && read.entries[0]).toMatchObject({ document: doc });
      expect(read.ok && read.entries[2]).toMatchObject({ ops });
      // The next append goes on from there, and its checkpoint is packed.
      await log.append('r1', { entries: [snapshot({ v: 2 })], document: { v: 2 }, now: T0 });
      expect((await redis.getBuffer(`${prefix}{r1}:doc`))![0]).toBe(0);
      expect(await log.head('r1')).toMatchObject({ seq: 4, documentSeq: 4, document: { v: 2 } });
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
