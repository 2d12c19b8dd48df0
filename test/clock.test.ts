import { afterEach, describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../src/clock.js';
import { createInFlight, type InFlight } from '../src/in-flight.js';

/** Outside I/O: answers after `turns` event-loop turns, more than the clock's own settle waits for. */
function slowIo(turns: number, io: InFlight): Promise<void> {
  const done = io.start();
  return (async () => {
    for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
    done();
  })();
}

/** A sleeper woken at 1000 starts I/O, then sleeps 10 ms more: when does its second wake happen? */
async function secondWake(ioAware: boolean): Promise<number | undefined> {
  const io = createInFlight();
  const clock = createManualClock(0, ioAware ? { io } : {});
  let woken: number | undefined;
  void (async () => {
    await clock.sleep(1000);
    await slowIo(200, io);
    await clock.sleep(10);
    woken = clock.now();
  })();
  await clock.advance(2000);
  return woken;
}

describe('createManualClock io', () => {
  afterEach(() => vi.restoreAllMocks());

  it('holds time still while outside I/O a sleeper started is in flight', async () => {
    expect(await secondWake(true)).toBe(1010);
  });

  it('without io, time moves on past I/O that outlasts the settle', async () => {
    expect(await secondWake(false)).toBeUndefined();
  });

  it('waits for the I/O without turning the event loop meanwhile', async () => {
    const io = createInFlight();
    const clock = createManualClock(0, { io });
    let answer: () => void = () => {};
    let answered = false;
    void (async () => {
      await clock.sleep(1000);
      const done = io.start();
      await new Promise<void>((resolve) => {
        answer = resolve;
      });
      done();
      answered = true;
    })();
    const turns = vi.spyOn(globalThis, 'setImmediate');
    const advanced = clock.advance(2000);
    // Until the sleeper's I/O is answered, time holds at its wake and the clock's turns stop at a fixed count.
    await vi.waitFor(() => expect(io.busy()).toBe(true));
    for (let i = 0; i < 50; i++) await new Promise<void>((r) => setTimeout(r, 0));
    const whileWaiting = turns.mock.calls.length;
    for (let i = 0; i < 50; i++) await new Promise<void>((r) => setTimeout(r, 0));
    expect(turns.mock.calls.length).toBe(whileWaiting);
    expect(clock.now()).toBe(1000);
    answer();
    await advanced;
    expect(answered).toBe(true);
    expect(clock.now()).toBe(2000);
  });
});

describe('createInFlight', () => {
  it('is idle once every operation started has ended, each counted out once', async () => {
    const io = createInFlight();
    await io.idle();
    const a = io.start();
    const b = io.start();
    let idle = false;
    void io.idle().then(() => {
      idle = true;
    });
    a();
    a();
    await Promise.resolve();
    expect(io.busy()).toBe(true);
    expect(idle).toBe(false);
    b();
    await Promise.resolve();
    expect(io.busy()).toBe(false);
    expect(idle).toBe(true);
  });
});
