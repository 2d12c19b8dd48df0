/**
 * linkSignals aborts with the first source to abort and lets go of its sources once disposed; the rate
 * limiter and the request transport, which link the poller's process-long stop signal on every upstream
 * request, leave no listener on it after hundreds of requests (AbortSignal.any kept one entry per request
 * in the signal for its whole life on Node 20: issue 23).
 */
import { getEventListeners, setMaxListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../src/clock.js';
import { linkSignals } from '../src/linked-signal.js';
import { createRateLimiter } from '../src/upstream/rate-limiter.js';
import { sendOnce } from '../src/upstream/transport.js';

const listeners = (signal: AbortSignal) => getEventListeners(signal, 'abort').length;
/** Composites Node's AbortSignal.any registered on the signal (its internal set; none on a runtime without it). */
const dependants = (signal: AbortSignal): number => {
  const key = Object.getOwnPropertySymbols(signal).find((s) => s.description === 'kDependantSignals');
  return key ? ((signal as unknown as Record<symbol, Set<unknown>>)[key]?.size ?? 0) : 0;
};

describe('linked signals', () => {
  it('abort with the reason of the source that aborted first, and leave the other source alone', () => {
    const a = new AbortController();
    const b = new AbortController();
    const linked = linkSignals(a.signal, b.signal);
    expect(linked.signal.aborted).toBe(false);
    b.abort(new Error('b first'));
    a.abort(new Error('a second'));
    expect(linked.signal.aborted).toBe(true);
    expect((linked.signal.reason as Error).message).toBe('b first');
    expect(listeners(a.signal)).toBe(0);
  });

  it('are aborted at once when a source already is', () => {
    const a = new AbortController();
    a.abort('gone');
    expect(linkSignals(new AbortController().signal, a.signal).signal.reason).toBe('gone');
  });

  it('keep nothing on a long-lived source once disposed', () => {
    const root = new AbortController();
    for (let i = 0; i < 1_000; i++) linkSignals(new AbortController().signal, root.signal).dispose();
    expect(listeners(root.signal)).toBe(0);
    const last = linkSignals(root.signal);
    expect(listeners(root.signal)).toBe(1);
    root.abort('stop');
    expect(last.signal.reason).toBe('stop');
    expect(listeners(root.signal)).toBe(0);
  });

  it('leave no listener on the stop signal after 300 requests through the limiter and the transport', async () => {
    const clock = createManualClock(0);
    const stop = new AbortController();
    // All 300 wait in the limiter's queue at once here, each listening (the poller has two in flight).
    setMaxListeners(400, stop.signal);
    const limiter = createRateLimiter({ maxPerMinute: 100, clock });
    const fetch = async () => new Response('{}', { status: 200 });
    const requests: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      requests.push(
        limiter.schedule(
          () =>
            sendOnce({
              fetch,
              url: 'http://upstream.test/x',
              path: '/x',
              headers: {},
              wall: clock,
              timeoutMs: 10_000,
              signal: stop.signal,
            }),
          { signal: stop.signal },
        ),
      );
    }
    // 300 requests at 100 a minute: three minutes and a little.
    for (let t = 0; t < 4 * 60_000; t += 1_000) await clock.advance(1_000);
    expect((await Promise.all(requests)).length).toBe(300);
    expect(listeners(stop.signal)).toBe(0);
    expect(dependants(stop.signal)).toBe(0);
    limiter.close();
  });
});
