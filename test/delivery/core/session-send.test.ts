import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../../src/clock.js';
import { FlushScheduler } from '../../../src/delivery/core/flush-scheduler.js';
import { DEFAULT_DELIVERY_LIMITS } from '../../../src/delivery/core/limits.js';
import { type Outgoing, outgoing } from '../../../src/delivery/core/outgoing.js';
import { Session, SMALL_BYTES } from '../../../src/delivery/core/session.js';
import type { Sink } from '../../../src/delivery/core/sink.js';

/** A sink that records each write (the messages' JSON) and asks to wait while `full`. */
function recordingSink() {
  const writes: string[][] = [];
  const drains: Array<() => void> = [];
  const sink: Sink & { full: boolean } = {
    full: false,
    write(batch) {
      writes.push(batch.map((o) => Buffer.concat(o.parts as Buffer[]).toString()));
      return !sink.full;
    },
    buffered: () => 0,
    onDrain: (l) => drains.push(l),
    end() {},
    destroy() {},
  };
  const drain = () => {
    sink.full = false;
    for (const l of drains.splice(0)) l();
  };
  return { sink, writes, drain };
}

function session(sink: Sink, opts: { clock?: ManualClock; slow?: (owed: number) => void } = {}) {
  const scheduler = new FlushScheduler();
  return new Session(
    'c1',
    { name: 'k', scope: 'partner', anonymous: false },
    'ws',
    sink,
    { ...DEFAULT_DELIVERY_LIMITS, maxBufferedBytes: 100, slowConsumerMs: 1000 },
    opts.clock ?? createManualClock(0),
    { schedule: scheduler.schedule, slow: (_, owed) => opts.slow?.(owed), sent: () => {} },
    new AbortController().signal,
  );
}

const msg = (n: number): Outgoing => outgoing({ n });

describe('Session send path', () => {
  it('writes the first batch of a turn at once and the later ones of that turn together on the next', async () => {
    const { sink, writes } = recordingSink();
    const s = session(sink);
    s.send([msg(1)]);
    expect(writes).toEqual([['{"n":1}']]);
    s.send([msg(2)]);
    s.send([msg(3), msg(4)]);
    expect(writes).toHaveLength(1);
    await nextTurn();
    expect(writes).toEqual([['{"n":1}'], ['{"n":2}', '{"n":3}', '{"n":4}']]);
    // A new turn with nothing queued: written at once again.
    await nextTurn();
    s.send([msg(5)]);
    expect(writes.at(-1)).toEqual(['{"n":5}']);
  });

  it('queues a large batch for the scheduler instead of writing it at once', async () => {
    const { sink, writes } = recordingSink();
    const s = session(sink);
    const big = outgoing({ pad: 'x'.repeat(SMALL_BYTES) });
    s.send([big]);
    expect(writes).toHaveLength(0);
    expect(s.queued()).toBe(big.bytes);
    await nextTurn();
    expect(writes).toHaveLength(1);
    expect(s.queued()).toBe(0);
  });

  it('writes nothing more while the transport asks to wait, then everything queued in order', async () => {
    const { sink, writes, drain } = recordingSink();
    const s = session(sink);
    sink.full = true;
    s.send([msg(1)]);
    await nextTurn();
    s.send([msg(2)]);
    await nextTurn();
    s.send([msg(3)]);
    await nextTurn();
    expect(writes).toEqual([['{"n":1}']]);
    expect(s.queued()).toBe(msg(2).bytes + msg(3).bytes);
    drain();
    await nextTurn();
    expect(writes).toEqual([['{"n":1}'], ['{"n":2}', '{"n":3}']]);
  });

  it('holds a connection whose socket keeps more than the soft limit for the slow-consumer time to that rule', async () => {
    const { sink } = recordingSink();
    let held = 0;
    sink.buffered = () => held;
    const clock = createManualClock(0);
    const slow: number[] = [];
    const s = session(sink, { clock, slow: (owed) => slow.push(owed) });
    held = 500; // the socket took the write but the kernel did not: 500 bytes wait in it
    s.send([msg(1)]);
    await clock.advance(999);
    expect(slow).toEqual([]);
    await clock.advance(1);
    expect(slow).toEqual([500]);
  });

  it('forgets the excess once the socket drains below the soft limit', async () => {
    const { sink } = recordingSink();
    let held = 500;
    sink.buffered = () => held;
    const clock = createManualClock(0);
    const slow: number[] = [];
    const s = session(sink, { clock, slow: (owed) => slow.push(owed) });
    s.send([msg(1)]);
    held = 0;
    await clock.advance(1000);
    expect(slow).toEqual([]);
  });
});
