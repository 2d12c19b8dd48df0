/**
 * The EventLog contract as a property: random changes, trims and reads run against an adapter and against a
 * plain model of the rules, and every answer must agree. Backend-agnostic like event-log.contract.ts.
 */
import fc from 'fast-check';
import { expect, it } from 'vitest';
import type { NewEntry } from '../../src/events/envelope.js';
import { event, patch, snapshot, T0 } from './entry-builders.js';
import type { EventLogFactory } from './event-log.contract.js';

type Command =
  | { t: 'events'; stream: string; n: number }
  | { t: 'snapshot' | 'patch'; stream: string; v: number; events: number }
  | { t: 'trim'; keep: number }
  | { t: 'read'; stream: string; ahead: number; limit: number | undefined };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    t: fc.constant('events' as const),
    stream: fc.constantFrom('r1', 'r2'),
    n: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({
    t: fc.constantFrom('snapshot' as const, 'patch' as const),
    stream: fc.constantFrom('r1', 'r2'),
    v: fc.integer(),
    events: fc.integer({ min: 0, max: 2 }),
  }),
  fc.record({ t: fc.constant('trim' as const), keep: fc.integer({ min: 0, max: 6 }) }),
  fc.record({
    t: fc.constant('read' as const),
    stream: fc.constantFrom('r1', 'r2', 'r3'),
    ahead: fc.integer({ min: -12, max: 2 }),
    limit: fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined }),
  }),
);

interface ModelStream {
  seq: number;
  documentSeq: number;
  document: unknown;
  kinds: Map<number, string>;
}

/** Runs random changes, trims and reads against the log and a plain model, and compares every answer. */
export function eventLogModelContract(name: string, factory: EventLogFactory, numRuns = 40): void {
  it(`EventLog contract: ${name} answers like the reference model for any sequence of operations`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
        fc.array(commandArb, { maxLength: 40 }),
        async (window, commands) => {
          const { log } = await factory({ window });
          try {
            const model = new Map<string, ModelStream>();
            const at = (s: string) =>
              model.get(s) ?? {
                seq: 0,
                documentSeq: 0,
                document: undefined,
                kinds: new Map<number, string>(),
              };
            const keepNewest = (m: ModelStream, keep: number) => {
              for (const seq of [...m.kinds.keys()]) if (seq <= m.seq - keep) m.kinds.delete(seq);
            };
            for (const c of commands) {
              if (c.t === 'trim') {
                await log.trim(c.keep);
                for (const m of model.values()) keepNewest(m, c.keep);
                continue;
              }
              const m = at(c.stream);
              if (c.t === 'read') {
                const after = Math.max(0, m.seq + c.ahead);
                const got = await log.read(c.stream, after, { limit: c.limit });
                const oldest = m.kinds.size === 0 ? m.seq + 1 : Math.min(...m.kinds.keys());
                if (after > m.seq) expect(got).toMatchObject({ ok: false, reason: 'epoch_mismatch' });
                else if (after < oldest - 1) expect(got).toMatchObject({ ok: false, reason: 'too_old' });
                else {
                  const want = [...m.kinds]
                    .filter(([seq]) => seq > after)
                    .sort((a, b) => a[0] - b[0])
                    .slice(0, c.limit ?? Number.POSITIVE_INFINITY);
                  expect(got.ok && got.entries.map((e) => [e.seq, e.kind])).toEqual(want);
                }
                continue;
              }
              if (c.t === 'patch' && m.documentSeq === 0) continue;
              const entries: NewEntry[] = [];
              if (c.t === 'events') for (let i = 0; i < c.n; i++) entries.push(event('e'));
              else {
                entries.push(
                  c.t === 'snapshot'
                    ? snapshot({ v: c.v })
                    : patch([{ op: 'replace', path: '/v', value: c.v }]),
                );
                for (let i = 0; i < c.events; i++) entries.push(event('e'));
              }
              const document = c.t === 'events' ? undefined : { v: c.v };
              await log.append(c.stream, { entries, document, now: T0 });
              for (const e of entries) {
                m.seq += 1;
                m.kinds.set(m.seq, e.kind);
                if (e.kind !== 'event') m.documentSeq = m.seq;
              }
              if (document) m.document = document;
              if (window !== undefined) keepNewest(m, window);
              model.set(c.stream, m);
            }
            for (const [stream, m] of model) {
              const head = await log.head(stream);
              expect([head.seq, head.documentSeq, head.document]).toEqual([m.seq, m.documentSeq, m.document]);
            }
            expect([...(await log.streams())].sort()).toEqual([...model.keys()].sort());
          } finally {
            await log.close();
          }
        },
      ),
      { numRuns },
    );
  });
}
