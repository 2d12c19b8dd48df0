/**
 * The EventLog contract, run against every adapter (memory, SQLite, later Redis). Backend-agnostic: it only
 * uses the port, and a factory that makes an empty log (and, for durable adapters, reopens it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/events/envelope.js';
import { EventLogError } from '../../src/store/errors.js';
import { type EventLog, FEED_START } from '../../src/store/ports.js';
import { event, patch, snapshot, T0, T1 } from './entry-builders.js';
import { largeDocument } from './large-document.js';

export { event, patch, snapshot } from './entry-builders.js';
export { eventLogModelContract } from './event-log.model-contract.js';

export interface EventLogUnderTest {
  log: EventLog;
  /** Durable adapters: closes `log` and opens the same storage again. */
  reopen?: () => Promise<EventLog>;
}

export type EventLogFactory = (opts: { window?: number }) => Promise<EventLogUnderTest>;

/** A shared log's entries also carry its epoch (redis-event-log.test.ts checks it); the rest is common. */
const withoutEpoch = (e: LogEntry) => {
  const { epoch: _, ...rest } = e;
  return rest;
};

export function eventLogContract(name: string, factory: EventLogFactory): void {
  describe(`EventLog contract: ${name}`, () => {
    const opened: EventLog[] = [];
    afterEach(async () => {
      for (const log of opened.splice(0)) await log.close();
    });
    const make = async (opts: { window?: number } = {}) => {
      const made = await factory(opts);
      opened.push(made.log);
      return made;
    };
    const fresh = async (opts: { window?: number } = {}) => (await make(opts)).log;
    /** Appends `n` single-event changes and returns the last seq. */
    const appendEvents = async (log: EventLog, stream: string, n: number) => {
      for (let i = 0; i < n; i++) await log.append(stream, { entries: [event('tick', { i })], now: T0 });
      return (await log.head(stream)).seq;
    };

    it('feeds every appended event, in append order, from any position, until trimmed', async () => {
      const log = await fresh();
      await log.append('r1', { entries: [snapshot({ v: 1 }), event('a')], document: { v: 1 }, now: T0 });
      await log.append('r2', { entries: [event('b'), event('c')], now: T0 });
      await log.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: 2 }])],
        document: { v: 2 },
        now: T1,
      });
      const all = await log.feed.read(FEED_START, 10);
      const e = (await log.head('r1')).epoch;
      expect(all.map((i) => i.entry.event.id)).toEqual([`r1:2@${e}`, `r2:1@${e}`, `r2:2@${e}`]);
      const stored = await log.read('r1', 1, { limit: 1 });
      expect(stored.ok && stored.entries[0]).toEqual(all[0]?.entry);
      expect((await log.feed.read(all[0]!.position, 1)).map((i) => i.entry.event.id)).toEqual([`r2:1@${e}`]);
      await log.feed.trim(all[1]!.position);
      expect((await log.feed.read(FEED_START, 10)).map((i) => i.entry.event.id)).toEqual([`r2:2@${e}`]);
      await log.append('r3', { entries: [event('d')], now: T1 });
      expect((await log.feed.read(all[2]!.position, 10)).map((i) => i.entry.event.id)).toEqual([`r3:1@${e}`]);
    });

    it('reports an unknown stream at seq 0 with no document and a non-empty epoch', async () => {
      const log = await fresh();
      const head = await log.head('r1');
      expect(head).toEqual({ stream: 'r1', epoch: head.epoch, seq: 0, documentSeq: 0, document: undefined });
      expect(typeof head.epoch).toBe('string');
      expect(head.epoch.length).toBeGreaterThan(0);
      expect((await log.head('r1')).epoch).toBe(head.epoch);
    });

    it('keeps for a stream the epoch its head reported before the first write', async () => {
      const log = await fresh();
      const before = (await log.head('r1')).epoch;
      await log.append('r1', { entries: [snapshot({ a: 1 })], document: { a: 1 }, now: T0 });
      await log.append('r1', { entries: [event('x')], now: T1 });
      expect((await log.head('r1')).epoch).toBe(before);
    });

    it('numbers a first change from 1 in order, stamps it and gives events ids carrying the epoch', async () => {
      const log = await fresh();
      const { epoch } = await log.head('r1');
      const doc = { race: { status: 'Open' }, runners: [1, 2] };
      const stored = await log.append('r1', {
        entries: [snapshot(doc), event('race.status_changed', { from: null, to: 'Open' })],
        document: doc,
        now: T0,
      });
      const ts = '2026-11-22T10:00:00.000Z';
      expect(stored.map(withoutEpoch)).toEqual([
        { kind: 'snapshot', stream: 'r1', seq: 1, timestamp: ts, document: doc },
        {
          kind: 'event',
          stream: 'r1',
          seq: 2,
          timestamp: ts,
          event: {
            id: `r1:2@${epoch}`,
            type: 'race.status_changed',
            timestamp: ts,
            stream: 'r1',
            seq: 2,
            meetingId: 'm1',
            raceId: 'r1',
            data: { from: null, to: 'Open' },
          },
        },
      ]);
      const head = await log.head('r1');
      expect(head).toEqual({ stream: 'r1', epoch: head.epoch, seq: 2, documentSeq: 1, document: doc });
    });

    it('continues numbering and bases a patch on the previous document version', async () => {
      const log = await fresh();
      await log.append('r1', { entries: [snapshot({ v: 1 }), event('a')], document: { v: 1 }, now: T0 });
      const onlyEvent = await log.append('r1', { entries: [event('b')], now: T0 });
      expect(onlyEvent.map((e) => e.seq)).toEqual([3]);
      const stored = await log.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: 2 }]), event('c')],
        document: { v: 2 },
        now: T1,
      });
      expect(withoutEpoch(stored[0]!)).toEqual({
        kind: 'patch',
        stream: 'r1',
        seq: 4,
        timestamp: '2026-11-22T10:00:05.250Z',
        base: 1,
        ops: [{ op: 'replace', path: '/v', value: 2 }],
      });
      const { epoch } = await log.head('r1');
      expect(stored[1]).toMatchObject({
        kind: 'event',
        seq: 5,
        event: { id: `r1:5@${epoch}`, seq: 5, type: 'c' },
      });
      const next = await log.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: 3 }])],
        document: { v: 3 },
        now: T1,
      });
      expect(next[0]).toMatchObject({ kind: 'patch', seq: 6, base: 4 });
      const head = await log.head('r1');
      expect([head.seq, head.documentSeq, head.document]).toEqual([6, 6, { v: 3 }]);
    });

    it('leaves the document and its version alone on a change of events only', async () => {
      const log = await fresh();
      await log.append('r1', { entries: [snapshot({ v: 1 })], document: { v: 1 }, now: T0 });
      await log.append('r1', { entries: [event('a'), event('b')], now: T0 });
      const head = await log.head('r1');
      expect([head.seq, head.documentSeq, head.document]).toEqual([3, 1, { v: 1 }]);
    });

    it('numbers each stream on its own', async () => {
      const log = await fresh();
      await appendEvents(log, 'r1', 3);
      const stored = await log.append('meeting:m1', { entries: [event('meeting.race_added')], now: T0 });
      const { epoch } = await log.head('meeting:m1');
      expect(stored[0]).toMatchObject({
        seq: 1,
        stream: 'meeting:m1',
        event: { id: `meeting:m1:1@${epoch}` },
      });
      expect((await log.head('r1')).seq).toBe(3);
    });

    it('treats an empty change as nothing: no entries and no stream', async () => {
      const log = await fresh();
      expect(await log.append('r1', { entries: [], now: T0 })).toEqual([]);
      expect(await log.streams()).toEqual([]);
      expect((await log.head('r1')).seq).toBe(0);
    });

    it('lists the streams that were written, not those only looked at', async () => {
      const log = await fresh();
      await log.head('r9');
      await log.read('r8', 0);
      await appendEvents(log, 'r2', 1);
      await appendEvents(log, 'meeting:m1', 1);
      await appendEvents(log, 'r1', 1);
      expect([...(await log.streams())].sort()).toEqual(['meeting:m1', 'r1', 'r2']);
    });

    describe('rejects a change that would put the head and the entries out of step', () => {
      const cases: Array<[string, (log: EventLog) => Promise<unknown>, string]> = [
        [
          'a document without a snapshot or patch',
          (log) => log.append('r1', { entries: [event('a')], document: { v: 1 }, now: T0 }),
          'missing_document_entry',
        ],
        [
          'two snapshots in one change',
          (log) => log.append('r1', { entries: [snapshot({}), snapshot({})], document: {}, now: T0 }),
          'multiple_document_entries',
        ],
        [
          'a snapshot without its document',
          (log) => log.append('r1', { entries: [snapshot({ v: 1 })], now: T0 }),
          'missing_document',
        ],
        [
          'a patch on a stream with no document',
          (log) =>
            log.append('r1', {
              entries: [patch([{ op: 'replace', path: '/v', value: 1 }])],
              document: {},
              now: T0,
            }),
          'patch_without_base',
        ],
        [
          'an invalid time',
          (log) => log.append('r1', { entries: [event('a')], now: new Date(Number.NaN) }),
          'invalid_timestamp',
        ],
      ];
      for (const [what, act, code] of cases) {
        it(`rejects ${what} with code ${code} and appends nothing`, async () => {
          const log = await fresh();
          await expect(act(log)).rejects.toBeInstanceOf(EventLogError);
          await expect(act(log)).rejects.toMatchObject({ code });
          expect((await log.head('r1')).seq).toBe(0);
          expect(await log.read('r1', 0)).toEqual({ ok: true, entries: [] });
        });
      }
    });

    it('reads the entries after a position, oldest first, exactly as appended', async () => {
      const log = await fresh();
      const first = await log.append('r1', {
        entries: [snapshot({ v: 1 }), event('a')],
        document: { v: 1 },
        now: T0,
      });
      const second = await log.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: 2 }]), event('b')],
        document: { v: 2 },
        now: T1,
      });
      expect(await log.read('r1', 0)).toEqual({ ok: true, entries: [...first, ...second] });
      expect(await log.read('r1', 2)).toEqual({ ok: true, entries: second });
      expect(await log.read('r1', 3)).toEqual({ ok: true, entries: [second[1]] });
    });

    it('reads at most limit entries', async () => {
      const log = await fresh();
      await appendEvents(log, 'r1', 5);
      const read = await log.read('r1', 1, { limit: 2 });
      expect(read.ok && read.entries.map((e) => e.seq)).toEqual([2, 3]);
      const none = await log.read('r1', 1, { limit: 0 });
      expect(none).toEqual({ ok: true, entries: [] });
    });

    it('answers a read at the head with no entries, also for an unknown stream', async () => {
      const log = await fresh();
      expect(await log.read('r1', 0)).toEqual({ ok: true, entries: [] });
      await appendEvents(log, 'r1', 3);
      expect(await log.read('r1', 3)).toEqual({ ok: true, entries: [] });
    });

    it('answers a position ahead of the head as another epoch', async () => {
      const log = await fresh();
      await appendEvents(log, 'r1', 2);
      const head = await log.head('r1');
      expect(await log.read('r1', 3)).toEqual({ ok: false, reason: 'epoch_mismatch', head });
      const unknown = await log.head('r2');
      expect(await log.read('r2', 1)).toEqual({ ok: false, reason: 'epoch_mismatch', head: unknown });
    });

    it('answers a read with another epoch as epoch_mismatch and with its own epoch as usual', async () => {
      const log = await fresh();
      await appendEvents(log, 'r1', 2);
      const head = await log.head('r1');
      expect(await log.read('r1', 0, { epoch: `${head.epoch}-other` })).toEqual({
        ok: false,
        reason: 'epoch_mismatch',
        head,
      });
      const read = await log.read('r1', 0, { epoch: head.epoch });
      expect(read.ok && read.entries.map((e) => e.seq)).toEqual([1, 2]);
    });

    it('trims each stream to its newest entries and answers older positions too_old', async () => {
      const log = await fresh();
      await log.append('r1', { entries: [snapshot({ v: 1 })], document: { v: 1 }, now: T0 });
      await appendEvents(log, 'r1', 9);
      await appendEvents(log, 'r2', 2);
      await log.trim(3);
      const head = await log.head('r1');
      expect([head.seq, head.documentSeq, head.document]).toEqual([10, 1, { v: 1 }]);
      expect(await log.read('r1', 6)).toEqual({ ok: false, reason: 'too_old', head });
      expect(await log.read('r1', 0)).toEqual({ ok: false, reason: 'too_old', head });
      const kept = await log.read('r1', 7);
      expect(kept.ok && kept.entries.map((e) => e.seq)).toEqual([8, 9, 10]);
      const other = await log.read('r2', 0);
      expect(other.ok && other.entries.map((e) => e.seq)).toEqual([1, 2]);
    });

    it('keeps only the head when trimmed to nothing', async () => {
      const log = await fresh();
      await appendEvents(log, 'r1', 3);
      await log.trim(0);
      const head = await log.head('r1');
      expect(head.seq).toBe(3);
      expect(await log.read('r1', 3)).toEqual({ ok: true, entries: [] });
      expect(await log.read('r1', 2)).toEqual({ ok: false, reason: 'too_old', head });
      const next = await log.append('r1', { entries: [event('a')], now: T0 });
      expect(next[0]?.seq).toBe(4);
      expect(await log.read('r1', 3)).toEqual({ ok: true, entries: next });
    });

    it('trims to the window on append', async () => {
      const log = await fresh({ window: 4 });
      await appendEvents(log, 'r1', 5);
      await log.append('r1', { entries: [event('a'), event('b'), event('c')], now: T0 });
      const head = await log.head('r1');
      expect(head.seq).toBe(8);
      expect(await log.read('r1', 3)).toEqual({ ok: false, reason: 'too_old', head });
      const kept = await log.read('r1', 4);
      expect(kept.ok && kept.entries.map((e) => e.seq)).toEqual([5, 6, 7, 8]);
    });

    describe("expire: retention by the time of each stream's last append", () => {
      const at = (iso: string) => new Date(`2026-11-${iso}Z`);
      /** r-old: last written on the 10th; r-mid: the 20th; r-new: the 22nd. Each a snapshot, a patch, an event. */
      const threeStreams = async (log: EventLog) => {
        for (const [stream, day] of [
          ['r-old', '10'],
          ['r-mid', '20'],
          ['r-new', '22'],
        ] as const) {
          await log.append(stream, {
            entries: [snapshot({ v: 1 })],
            document: { v: 1 },
            now: at(`${day}T09:00:00`),
          });
          await log.append(stream, {
            entries: [patch([{ op: 'replace', path: '/v', value: 2 }]), event('a')],
            document: { v: 2 },
            now: at(`${day}T10:00:00`),
          });
        }
      };
      const policy = { settledBefore: at('21T00:00:00'), forgetBefore: at('15T00:00:00') };

      it('drops the entries of a settled stream, keeping its head and document', async () => {
        const log = await fresh();
        await threeStreams(log);
        expect(await log.expire(policy)).toEqual({ settled: 1, forgotten: 1 });
        const head = await log.head('r-mid');
        expect([head.seq, head.documentSeq, head.document]).toEqual([3, 2, { v: 2 }]);
        expect(await log.read('r-mid', 0)).toEqual({ ok: false, reason: 'too_old', head });
        expect(await log.read('r-mid', 3)).toEqual({ ok: true, entries: [] });
        const untouched = await log.read('r-new', 0);
        expect(untouched.ok && untouched.entries.map((e) => e.seq)).toEqual([1, 2, 3]);
        expect((await log.head('r-new')).document).toEqual({ v: 2 });
      });

      it("forgets an old stream's document but keeps its seq, so a new write never reuses an event id", async () => {
        const log = await fresh();
        await threeStreams(log);
        await log.expire(policy);
        const head = await log.head('r-old');
        expect([head.seq, head.documentSeq, head.document]).toEqual([3, 0, undefined]);
        expect(await log.read('r-old', 1)).toEqual({ ok: false, reason: 'too_old', head });
        const again = await log.append('r-old', {
          entries: [snapshot({ v: 9 }), event('b')],
          document: { v: 9 },
          now: at('23T00:00:00'),
        });
        expect(again.map((e) => (e.kind === 'event' ? e.event.id : e.seq))).toEqual([
          4,
          `r-old:5@${head.epoch}`,
        ]);
        expect((await log.head('r-old')).document).toEqual({ v: 9 });
      });

      it('counts nothing twice: a second expire with the same policy removes nothing', async () => {
        const log = await fresh();
        await threeStreams(log);
        await log.expire(policy);
        expect(await log.expire(policy)).toEqual({ settled: 0, forgotten: 0 });
        expect(await log.expire({ ...policy, forgetBefore: policy.settledBefore })).toEqual({
          settled: 0,
          forgotten: 1,
        });
        expect((await log.head('r-mid')).document).toBeUndefined();
        expect((await log.head('r-new')).document).toEqual({ v: 2 });
      });
    });

    it('never gives two concurrent appends to one stream the same seq', async () => {
      const log = await fresh();
      const appends = Array.from({ length: 40 }, (_, i) =>
        log.append('r1', { entries: [event('a', { i }), event('b', { i })], now: T0 }),
      );
      const results = await Promise.all(appends);
      const seqs = results.flat().map((e) => e.seq);
      expect([...seqs].sort((a, b) => a - b)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
      for (const pair of results) expect(pair[1]!.seq).toBe(pair[0]!.seq + 1);
      const read = await log.read('r1', 0);
      expect(read.ok && read.entries.map((e) => e.seq)).toEqual(Array.from({ length: 80 }, (_, i) => i + 1));
    });

    it('stores a large document and snapshot whole', async () => {
      const log = await fresh();
      const doc = largeDocument();
      expect(JSON.stringify(doc).length).toBeGreaterThan(200_000);
      await log.append('r1', { entries: [snapshot(doc), event('a')], document: doc, now: T0 });
      expect((await log.head('r1')).document).toEqual(doc);
      const read = await log.read('r1', 0);
      expect(read.ok && read.entries[0]).toMatchObject({ kind: 'snapshot', document: doc });
    });

    it('hands out copies: changing what it returned does not change the log', async () => {
      const log = await fresh();
      const doc = { v: 1, list: [1] };
      const stored = await log.append('r1', { entries: [snapshot(doc), event('a')], document: doc, now: T0 });
      doc.list.push(2);
      (stored[1] as Extract<LogEntry, { kind: 'event' }>).event.type = 'changed';
      const head = await log.head('r1');
      (head.document as { v: number }).v = 99;
      expect((await log.head('r1')).document).toEqual({ v: 1, list: [1] });
      const read = await log.read('r1', 0);
      expect(read.ok && read.entries.map((e) => (e.kind === 'event' ? e.event.type : e.kind))).toEqual([
        'snapshot',
        'a',
      ]);
    });

    it('rejects a negative or fractional position', async () => {
      const log = await fresh();
      await expect(log.read('r1', -1)).rejects.toMatchObject({ code: 'invalid_argument' });
      await expect(log.read('r1', 1.5)).rejects.toMatchObject({ code: 'invalid_argument' });
      await expect(log.trim(-1)).rejects.toMatchObject({ code: 'invalid_argument' });
    });

    it('refuses to be used once closed', async () => {
      const { log } = await make();
      await log.close();
      await expect(log.head('r1')).rejects.toMatchObject({ code: 'log_closed' });
      await expect(log.append('r1', { entries: [event('a')], now: T0 })).rejects.toMatchObject({
        code: 'log_closed',
      });
    });

    it('keeps heads, documents, entries and epochs across a reopen and continues numbering', async (ctx) => {
      const made = await make();
      if (!made.reopen) return ctx.skip();
      const { log } = made;
      await log.append('r1', { entries: [snapshot({ v: 1 }), event('a')], document: { v: 1 }, now: T0 });
      await log.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: 2 }])],
        document: { v: 2 },
        now: T1,
      });
      await appendEvents(log, 'meeting:m1', 2);
      const heads = [await log.head('r1'), await log.head('meeting:m1')];
      const entries = await log.read('r1', 0);

      const again = await made.reopen();
      opened.push(again);
      expect([await again.head('r1'), await again.head('meeting:m1')]).toEqual(heads);
      expect(await again.read('r1', 0)).toEqual(entries);
      expect([...(await again.streams())].sort()).toEqual(['meeting:m1', 'r1']);
      const next = await again.append('r1', {
        entries: [patch([{ op: 'replace', path: '/v', value: 3 }]), event('b')],
        document: { v: 3 },
        now: T1,
      });
      expect(next.map((e) => [e.seq, e.kind === 'patch' ? e.base : null])).toEqual([
        [4, 3],
        [5, null],
      ]);
    });
  });
}
