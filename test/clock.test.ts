import { describe, expect, it } from 'vitest';
import { createManualClock } from '../src/clock.js';

/** Outside I/O: answers after `turns` event-loop turns, more than the clock's own settle waits for. */
function slowIo(turns: number, counter: { inFlight: number }): Promise<void> {
  counter.inFlight++;
  return (async () => {
    for (let i = 0; i < turns; i++) await new Promise<void>((r) => setImmediate(r));
    counter.inFlight--;
  })();
}

/** A sleeper woken at 1000 starts I/O, then sleeps 10 ms more: when does its second wake happen? */
async function secondWake(busyAware: boolean): Promise<number | undefined> {
  const io = { inFlight: 0 };
  const clock = createManualClock(0, busyAware ? { busy: () => io.inFlight > 0 } : {});
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

describe('createManualClock busy', () => {
  it('holds time still while outside I/O a sleeper started is in flight', async () => {
    expect(await secondWake(true)).toBe(1010);
  });

  it('without busy, time moves on past I/O that outlasts the settle', async () => {
    expect(await secondWake(false)).toBeUndefined();
  });
});
