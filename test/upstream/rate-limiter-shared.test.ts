import { describe, expect, it } from 'vitest';
import { type Clock, createManualClock } from '../../src/clock.js';
import { createMemoryRateWindow } from '../../src/upstream/memory-rate-window.js';
import { createRateLimiter, type SharedWindow } from '../../src/upstream/rate-limiter.js';

/** The Redis window's rule in memory: at most `max` admissions in any 60 s, on the given clock. */
function fakeSharedWindow(clock: Clock, max: number): SharedWindow & { admitted: number[]; down: boolean } {
  const admitted: number[] = [];
  const window = {
    admitted,
    down: false,
    async tryAcquire() {
      if (window.down) throw new Error('connect ECONNREFUSED 127.0.0.1:6379');
      const now = clock.now();
      const recent = admitted.filter((t) => t > now - 60_000);
      if (recent.length < max) {
        admitted.push(now);
        return { admitted: true as const };
      }
      return { admitted: false as const, retryInMs: recent[0]! + 60_000 - now };
    },
  };
  return window;
}

function maxInAnyWindow(starts: number[]): number {
  let best = 0;
  for (const t of starts) best = Math.max(best, starts.filter((s) => s >= t && s < t + 60_000).length);
  return best;
}

describe('rate limiter with a shared window', () => {
  it('lets two nodes together start no more than the shared budget in any 60 s', async () => {
    const clock = createManualClock(0);
    const shared = fakeSharedWindow(clock, 30);
    const nodes = [0, 1].map(() =>
      createRateLimiter({ maxPerMinute: 30, clock, burst: 30, maxConcurrent: 100, sharedWindow: shared }),
    );
    const starts: number[] = [];
    const done = nodes.flatMap((limiter) =>
      Array.from({ length: 45 }, () => limiter.schedule(async () => void starts.push(clock.now()))),
    );
    for (let t = 0; t < 200; t++) await clock.advance(1_000);
    await Promise.all(done);
    expect(starts.length).toBe(90);
    expect(maxInAnyWindow(starts)).toBe(30);
    expect(shared.admitted).toEqual(starts);
  });

  it('keeps the queue in priority order behind a head that waits for the shared slot', async () => {
    const clock = createManualClock(0);
    const shared = fakeSharedWindow(clock, 1);
    await shared.tryAcquire(); // another node spent the budget
    const limiter = createRateLimiter({ maxPerMinute: 10, clock, burst: 10, sharedWindow: shared });
    const order: string[] = [];
    const first = limiter.schedule(async () => void order.push('first'));
    await clock.advance(0);
    const low = limiter.schedule(async () => void order.push('low'), { priority: 1 });
    const high = limiter.schedule(async () => void order.push('high'), { priority: 9 });
    for (let i = 0; i < 3; i++) await clock.advance(60_000);
    await Promise.all([first, low, high]);
    expect(order).toEqual(['first', 'high', 'low']);
    expect(shared.admitted).toEqual([0, 60_000, 120_000, 180_000]);
  });

  it('holds every request while the shared window is unreachable and starts them when it returns', async () => {
    const clock = createManualClock(0);
    const shared = fakeSharedWindow(clock, 100);
    shared.down = true;
    const limiter = createRateLimiter({ maxPerMinute: 100, clock, sharedWindow: shared });
    let started = 0;
    const done = limiter.schedule(async () => void started++);
    await clock.advance(5_000);
    expect(started).toBe(0);
    expect(limiter.stats()).toMatchObject({ used: 0, queued: 1 });
    shared.down = false;
    await clock.advance(1_000);
    await done;
    expect(started).toBe(1);
    expect(shared.admitted).toEqual([6_000]);
  });

  it('lets a request waiting for the shared window be aborted, starting nothing and leaking no slot', async () => {
    const clock = createManualClock(0);
    const shared = fakeSharedWindow(clock, 100);
    shared.down = true;
    const limiter = createRateLimiter({ maxPerMinute: 100, clock, maxConcurrent: 1, sharedWindow: shared });
    const abort = new AbortController();
    let ran = false;
    const waiting = limiter.schedule(
      async () => {
        ran = true;
      },
      { signal: abort.signal },
    );
    await clock.advance(3_000);
    abort.abort(new Error('poller stopped'));
    await expect(waiting).rejects.toThrow('poller stopped');
    shared.down = false;
    const next = limiter.schedule(async () => 'sent');
    await clock.advance(1_000);
    expect(await next).toBe('sent');
    expect(ran).toBe(false);
    expect(limiter.stats()).toMatchObject({ used: 1, inFlight: 0, queued: 0 });
  });

  describe('a hand-over while the old leader holds an admission it has not sent yet', () => {
    /**
     * Two nodes on one window that holds each start 60 s + 2 s (a request must be sent within 1 s). The old leader's admission is recorded at 0,
     * then the old leader is suspended (SIGSTOP, or the reply sits in a reconnecting client) for `frozenMs`
     * before it can send; meanwhile the new leader spends the rest of the budget. Sends are what the
     * provider counts (on arrival; here, at the instant each request is sent).
     */
    async function handOver(frozenMs: number) {
      const clock = createManualClock(0);
      const window = createMemoryRateWindow({ maxPerMinute: 60, clock, marginMs: 2_000 });
      let thaw: () => void = () => {};
      const thawed = new Promise<void>((r) => {
        thaw = r;
      });
      let frozen = true;
      const oldWindow: SharedWindow = {
        sendWithinMs: window.sendWithinMs,
        async tryAcquire() {
          const admission = await window.tryAcquire();
          if (frozen) await thawed; // the script ran at 0; the process resumes later
          return admission;
        },
      };
      const sends: { node: string; at: number }[] = [];
      const limiter = (sharedWindow: SharedWindow) =>
        createRateLimiter({ maxPerMinute: 60, clock, burst: 60, maxConcurrent: 100, sharedWindow });
      const [oldLeader, newLeader] = [limiter(oldWindow), limiter(window)];
      const sent = oldLeader.schedule(async () => void sends.push({ node: 'old', at: clock.now() }));
      await clock.advance(frozenMs);
      frozen = false;
      thaw();
      const next = Array.from({ length: 60 }, () =>
        newLeader.schedule(async () => void sends.push({ node: 'new', at: clock.now() })),
      );
      for (let t = 0; t < 130; t++) await clock.advance(1_000);
      await Promise.all([sent, ...next]);
      return { sends, peak: maxInAnyWindow(sends.map((s) => s.at)) };
    }

    it('drops an admission older than the window margin and asks again: never 61 in one minute', async () => {
      const { sends, peak } = await handOver(5_000);
      expect(peak).toBe(60);
      // The old leader's request goes out on a fresh admission; the stale one's slot stays spent, so the new
      // leader gets 58, not 59, before the first start leaves the window.
      expect(sends.filter((s) => s.node === 'old').map((s) => s.at)).toEqual([5_000]);
      expect(sends.filter((s) => s.node === 'new' && s.at === 5_000)).toHaveLength(58);
    });

    it('sends on an admission still within the margin', async () => {
      const { sends, peak } = await handOver(1_000);
      expect(peak).toBe(60);
      expect(sends.filter((s) => s.node === 'old').map((s) => s.at)).toEqual([1_000]);
    });
  });
});
