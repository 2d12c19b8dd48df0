/**
 * The budget holds across a restart (issue 28): a node killed without any shutdown hook and started again on
 * the same checkpoint spends, with its predecessor, at most the budget in any 60 s. Each "process" is a rate
 * limiter and a durable window on its own manual clock (the wall clock); a kill is the test no longer
 * advancing the old one's clock, so it sends nothing more and writes nothing more, and the checkpoint is an
 * in-memory disk that outlives it (the file behind it is tested in window-checkpoint.test.ts).
 */
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { assumedFullWindow, createDurableRateWindow } from '../../src/upstream/durable-rate-window.js';
import { createRateLimiter } from '../../src/upstream/rate-limiter.js';
import type { WindowCheckpoint } from '../../src/upstream/window-checkpoint.js';
import { captureLogs } from '../support/log-capture.js';

const T0 = Date.parse('2026-11-26T10:00:00Z');
const silent = pino({ level: 'silent' });

/** A checkpoint that survives the process, as DATA_DIR does; `undefined` is nothing readable. */
function memoryDisk(initial: number[] | undefined) {
  const disk = { kept: initial, writes: 0 };
  const checkpoint: WindowCheckpoint = {
    read: async () => (disk.kept === undefined ? undefined : [...disk.kept]),
    write: async (starts) => {
      disk.kept = [...starts];
      disk.writes++;
    },
  };
  return { disk, checkpoint };
}

/** One racewire process: a limiter with the default burst over a durable window, with a backlog of requests. */
async function startProcess(opts: {
  at: number;
  maxPerMinute: number;
  checkpoint: WindowCheckpoint;
  sent: number[];
}) {
  const clock = createManualClock(opts.at);
  const window = await createDurableRateWindow({
    maxPerMinute: opts.maxPerMinute,
    clock,
    checkpoint: opts.checkpoint,
    logger: silent,
  });
  const limiter = createRateLimiter({ maxPerMinute: opts.maxPerMinute, clock, sharedWindow: window });
  // More work than the budget allows, as a busy race day: the limiter alone decides when requests go.
  for (let i = 0; i < 4 * opts.maxPerMinute; i++) {
    void limiter.schedule(async () => void opts.sent.push(clock.now())).catch(() => {});
  }
  return { clock, window, limiter };
}

/** The most requests in any [t, t + 60 s), over every request t (the worst windows begin at one). */
function maxInAnyMinute(times: readonly number[]): number {
  let best = 0;
  for (const t of times) best = Math.max(best, times.filter((s) => s >= t && s < t + 60_000).length);
  return best;
}

describe('a single node request window across restarts', () => {
  it.each([40, 100])(
    'at %i per minute, a node killed mid-minute and restarted 3.3 s later sends with its predecessor at most the budget in any 60 s',
    async (max) => {
      const { checkpoint } = memoryDisk([]);
      const sent: number[] = [];
      const first = await startProcess({ at: T0, maxPerMinute: max, checkpoint, sent });
      await first.clock.advance(44_600); // the timeline: killed 44.6 s in
      const beforeKill = sent.length;
      const second = await startProcess({ at: T0 + 47_900, maxPerMinute: max, checkpoint, sent });
      await second.clock.advance(180_000);
      const step = 60_000 / max;
      const burst = Math.ceil(max / 20);
      expect(beforeKill).toBe(burst + Math.floor(44_600 / step));
      // The new process uses what is left of the minute (its own burst included), then waits for the window.
      const left = max - beforeKill;
      const second0 = sent.slice(beforeKill).map((t) => t - T0);
      expect(second0.slice(0, burst)).toEqual(Array.from({ length: burst }, () => 47_900));
      expect(second0.filter((t) => t < 62_000).length).toBe(left);
      // The first process's opening burst leaves the window 62 s on (60 s and the 2 s margin), not before.
      expect(second0.filter((t) => t < 62_000 + 1).length).toBe(left + burst);
      expect(maxInAnyMinute(sent)).toBe(max);
    },
  );

  it('never lets a killed node and its restart send more than the budget in any 60 s, wherever the kill falls', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(40, 100),
        fc.integer({ min: 0, max: 120_000 }),
        fc.integer({ min: 0, max: 70_000 }),
        async (max, killAt, downFor) => {
          const { checkpoint } = memoryDisk([]);
          const sent: number[] = [];
          const first = await startProcess({ at: T0, maxPerMinute: max, checkpoint, sent });
          await first.clock.advance(killAt);
          const second = await startProcess({
            at: T0 + killAt + downFor,
            maxPerMinute: max,
            checkpoint,
            sent,
          });
          await second.clock.advance(130_000);
          expect(maxInAnyMinute(sent)).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('starts at full pace, its burst at once, when cleanly restarted more than a minute after the last request', async () => {
    const { checkpoint } = memoryDisk([]);
    const sent: number[] = [];
    const first = await startProcess({ at: T0, maxPerMinute: 40, checkpoint, sent });
    await first.clock.advance(30_000);
    first.limiter.close(); // a clean stop: the window needs no hook, every start was written ahead of its send
    const last = sent.at(-1)!;
    expect(last).toBe(T0 + 30_000);
    const restart = last + 62_000;
    const before = sent.length;
    const second = await startProcess({ at: restart, maxPerMinute: 40, checkpoint, sent });
    await second.clock.advance(4_500);
    expect(sent.slice(before)).toEqual([0, 0, 1_500, 3_000, 4_500].map((t) => restart + t));
  });

  it('with nothing kept, ramps up as if a limiter with this budget had just filled the window: 5 s, then one every 60 s / budget', async () => {
    const { logger, lines } = captureLogs();
    const { checkpoint } = memoryDisk(undefined);
    const clock = createManualClock(T0);
    const window = await createDurableRateWindow({ maxPerMinute: 40, clock, checkpoint, logger });
    const limiter = createRateLimiter({ maxPerMinute: 40, clock, sharedWindow: window });
    const sent: number[] = [];
    for (let i = 0; i < 60; i++) void limiter.schedule(async () => void sent.push(clock.now() - T0));
    await clock.advance(10_000);
    expect(sent).toEqual([5_000, 6_500, 8_000, 9_500]);
    expect(lines.map((l) => l.msg)).toContain(
      'no request window kept in DATA_DIR; ramping up as if the last one were full',
    );
  });

  it('with nothing kept, never sends more than the budget in any 60 s with whatever a limiter sent before: the ramp covers its worst case', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(40, 100),
        // Work arriving in batches (gap before the batch, requests in it): idle spells, then bursts late.
        fc.array(fc.tuple(fc.integer({ min: 0, max: 40_000 }), fc.integer({ min: 1, max: 120 })), {
          minLength: 1,
          maxLength: 8,
        }),
        async (max, batches) => {
          const sent: number[] = [];
          const clock = createManualClock(T0);
          const limiter = createRateLimiter({ maxPerMinute: max, clock });
          for (const [gap, n] of batches) {
            await clock.advance(gap);
            for (let i = 0; i < n; i++) void limiter.schedule(async () => void sent.push(clock.now()));
          }
          await clock.advance(0);
          const lost = memoryDisk(undefined).checkpoint; // its window was never kept
          const second = await startProcess({ at: clock.now(), maxPerMinute: max, checkpoint: lost, sent });
          await second.clock.advance(130_000);
          expect(maxInAnyMinute(sent)).toBeLessThanOrEqual(max);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('assumes the fullest window a limiter can leave: its burst at the instant, one every 60 s / budget before', () => {
    expect(assumedFullWindow(1_000_000, 4, 2)).toEqual([970_000, 985_000, 1_000_000, 1_000_000]);
    const forty = assumedFullWindow(T0, 40, 2);
    expect(forty).toHaveLength(40);
    expect(forty[0]).toBe(T0 - 57_000);
    expect(forty.slice(-3)).toEqual([T0 - 1_500, T0, T0]);
    const hundred = assumedFullWindow(T0, 100, 5);
    expect(hundred[0]).toBe(T0 - 57_000); // held 62 s: the first slot frees 5 s after start, as at 40
    expect(hundred.slice(-6)).toEqual([T0 - 600, T0, T0, T0, T0, T0]);
  });

  it('holds a start kept from a later instant (the wall clock was set back) from now, not from then', async () => {
    const { checkpoint } = memoryDisk([T0 + 3_600_000]);
    const clock = createManualClock(T0);
    const window = await createDurableRateWindow({ maxPerMinute: 1, clock, checkpoint, logger: silent });
    expect(await window.tryAcquire()).toEqual({ admitted: false, retryInMs: 62_000 });
  });

  it('writes each admission before answering it, and admits nothing it could not write (the slot stays spent)', async () => {
    const { logger, lines } = captureLogs();
    const { disk, checkpoint } = memoryDisk([]);
    let failing = false;
    const flaky: WindowCheckpoint = {
      read: checkpoint.read,
      write: async (starts) => {
        if (failing) throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        await checkpoint.write(starts);
      },
    };
    const clock = createManualClock(T0);
    const window = await createDurableRateWindow({ maxPerMinute: 3, clock, checkpoint: flaky, logger });
    expect(await window.tryAcquire()).toEqual({ admitted: true });
    expect(disk.kept).toEqual([T0]);
    failing = true;
    await clock.advance(1_000);
    expect(await window.tryAcquire()).toEqual({ admitted: false, retryInMs: 1_000 });
    expect(
      lines.find((l) => l.msg === 'request window not written to DATA_DIR; holding requests'),
    ).toBeDefined();
    failing = false;
    await clock.advance(1_000);
    expect(await window.tryAcquire()).toEqual({ admitted: true });
    expect(disk.kept).toEqual([T0, T0 + 1_000, T0 + 2_000]);
    expect(await window.stats()).toEqual({ used: 3, limit: 3, nextFreeInMs: 60_000 });
  });
});
