/**
 * Readiness tells the truth (issue 14): a store whose every write fails with SQLITE_FULL makes the store check
 * fail with the reason and holds every upstream request, so the budget is not spent on fetches that cannot
 * be stored, until a write succeeds again. The failing store is injected; times are on a manual clock.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { watchWrites } from '../../src/backend/write-health.js';
import { createManualClock } from '../../src/clock.js';
import { createMemoryEventLog } from '../../src/store/index.js';
import { createMemoryRateWindow } from '../../src/upstream/memory-rate-window.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import { event, snapshot, T0 } from '../store/entry-builders.js';

const full = () => Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' });

function failingStore() {
  const clock = createManualClock(T0.getTime());
  const inner = createMemoryEventLog();
  let diskFull = false;
  const log = Object.create(inner);
  log.append = async (...args: Parameters<typeof inner.append>) => {
    if (diskFull) throw full();
    return inner.append(...args);
  };
  let probes = 0;
  const writes = watchWrites({
    log,
    probe: async () => {
      probes++;
      if (diskFull) throw full();
    },
    clock,
    logger: pino({ level: 'silent' }),
    retryMs: 5_000,
  });
  const window = writes.gate(createMemoryRateWindow({ maxPerMinute: 60, clock }));
  return {
    clock,
    writes,
    window,
    probes: () => probes,
    setDiskFull: (v: boolean) => {
      diskFull = v;
    },
  };
}

describe('write health', () => {
  it('fails readiness with the reason and admits no request while every write fails', async () => {
    const s = failingStore();
    await s.writes.log.append('r1', { entries: [snapshot({ a: 1 })], document: { a: 1 }, now: T0 });
    expect(await s.writes.readiness.check()).toEqual({ ok: true });
    expect((await s.window.tryAcquire()).admitted).toBe(true);

    s.setDiskFull(true);
    await expect(s.writes.log.append('r1', { entries: [event('x')], now: T0 })).rejects.toThrow(
      'disk is full',
    );
    expect(await s.writes.readiness.check()).toEqual({
      ok: false,
      detail: { reason: 'SQLITE_FULL: database or disk is full', since: T0.toISOString() },
    });
    expect(await s.window.tryAcquire()).toEqual({ admitted: false, retryInMs: 5_000 });
    // Sixty seconds of a full disk: a probe every 5 s, each refused; still not ready, nothing admitted.
    await s.clock.advance(60_000);
    expect(s.probes()).toBe(12);
    expect((await s.writes.readiness.check()).ok).toBe(false);
    expect((await s.window.tryAcquire()).admitted).toBe(false);

    // Space again: the next probe writes, readiness and polling come back.
    s.setDiskFull(false);
    await s.clock.advance(5_000);
    expect(s.writes.failing()).toBeUndefined();
    expect(await s.writes.readiness.check()).toEqual({ ok: true });
    expect((await s.window.tryAcquire()).admitted).toBe(true);
    s.writes.close();
  });

  it('holds a scheduled upstream request until the store writes again', async () => {
    const s = failingStore();
    const limiter = createRateLimiter({ maxPerMinute: 60, clock: s.clock, sharedWindow: s.window });
    s.setDiskFull(true);
    await expect(
      s.writes.log.append('r1', { entries: [snapshot({})], document: {}, now: T0 }),
    ).rejects.toThrow();
    let fetched = 0;
    const request = limiter.schedule(async () => ++fetched);
    await s.clock.advance(30_000);
    expect(fetched).toBe(0);
    s.setDiskFull(false);
    await s.writes.log.append('r1', { entries: [snapshot({})], document: {}, now: T0 });
    await s.clock.advance(5_000);
    expect(await request).toBe(1);
    limiter.close?.();
    s.writes.close();
  });

  it('does not take a fenced or conflicting append for a store that cannot write', async () => {
    const s = failingStore();
    const log = Object.create(s.writes.log);
    const writes = watchWrites({
      log: {
        ...log,
        append: async () => {
          throw Object.assign(new Error('fenced'), { code: 'fenced' });
        },
      },
      probe: async () => {},
      clock: s.clock,
      logger: pino({ level: 'silent' }),
    });
    await expect(writes.log.append('r1', { entries: [event('x')], now: T0 })).rejects.toThrow('fenced');
    expect(writes.failing()).toBeUndefined();
    writes.close();
  });
});
