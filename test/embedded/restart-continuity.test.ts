/**
 * Restart of the default set-up (embedded simulator, SQLite in DATA_DIR) on a manual clock that runs far
 * ahead of the wall clock, as SIMULATOR_SPEED does: start, run until races have changed status, stop, start
 * again on the same DATA_DIR, run on. The second start must resume the simulated clock where the first
 * stopped, so no event is repeated, no status goes backwards, and no stream's timestamps go backwards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHECKPOINT_FILE } from '../../src/embedded/clock-checkpoint.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { readLog, startOnManualClock } from '../support/manual-service.js';

// biome-ignore lint/suspicious/noExplicitAny: reading event payloads loosely
type Loose = any;
const MIN = 60_000;
const dataDir = mkdtempSync(join(tmpdir(), 'racewire-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const env = { STORE: 'sqlite', DATA_DIR: dataDir, SIMULATOR_SEED: '7' };
/** Status changes stored at or after `since`. */
async function statusChanges(since: number): Promise<number> {
  let n = 0;
  for (const entries of (await readLog(dataDir)).values()) {
    n += entries.filter(
      (e) => e.kind === 'event' && e.event.type === 'race.status_changed' && Date.parse(e.timestamp) >= since,
    ).length;
  }
  return n;
}

/** Runs `service` a second at a time, at least `min` and at most `max`, until `enough()` holds. */
async function runUntil(
  service: { step(ms: number): Promise<void> },
  enough: () => Promise<boolean>,
  min: number,
  max: number,
): Promise<boolean> {
  for (let t = 1000; t <= max; t += 1000) {
    await service.step(1000);
    if (t >= min && t % 30_000 === 0 && (await enough())) return true;
  }
  return false;
}

const RANK: Record<string, number> = { Open: 0, Closed: 1, Interim: 2, Final: 3, Abandoned: 3 };

/** What makes an event the same event again, for the types a consumer acts on once. */
function identity(entry: LogEntry): string | undefined {
  if (entry.kind !== 'event') return undefined;
  const d = entry.event.data as Loose;
  switch (entry.event.type) {
    case 'race.status_changed':
      return `status ${d.from}->${d.to}`;
    case 'race.results':
      return `results ${d.kind}`;
    case 'race.dividends':
      return `dividends ${d.status}`;
    case 'race.jumped':
      return 'jumped';
    case 'runner.scratched':
    case 'runner.reinstated':
      return `${entry.event.type} ${d.runner?.entrantId}`;
    default:
      return undefined;
  }
}

describe('restart of the embedded set-up on the same DATA_DIR', () => {
  it('resumes the simulated clock: no repeated event, no status going back, no timestamp going back', async () => {
    // Run 1: until several races have changed status (at least 5 simulated minutes).
    const first = await startOnManualClock(env);
    try {
      expect(await runUntil(first, async () => (await statusChanges(0)) >= 3, 5 * MIN, 120 * MIN)).toBe(true);
    } finally {
      await first.stop();
    }
    const stoppedAt = first.clock.now();
    expect(JSON.parse(readFileSync(join(dataDir, CHECKPOINT_FILE), 'utf8'))).toEqual({
      upstream: 'simulator:seed=7',
      at: new Date(stoppedAt).toISOString(),
    });

    // Run 2: the simulated clock is far ahead of the wall clock, so only resuming keeps it there. It runs
    // until races change status again, having fetched races whose documents run 1 stored.
    expect(stoppedAt).toBeGreaterThan(Date.now() + MIN);
    const second = await startOnManualClock(env);
    try {
      expect(second.origin).toBe(stoppedAt);
      expect(await runUntil(second, async () => (await statusChanges(stoppedAt)) >= 1, MIN, 120 * MIN)).toBe(
        true,
      );
    } finally {
      await second.stop();
    }

    const streams = await readLog(dataDir);
    for (const [stream, entries] of streams) {
      const times = entries.map((e) => Date.parse(e.timestamp));
      for (let i = 1; i < times.length; i++) {
        expect(times[i], `${stream} entry ${i + 1} goes back in time`).toBeGreaterThanOrEqual(
          times[i - 1] as number,
        );
      }
      const seen = new Set<string>();
      for (const entry of entries) {
        const id = identity(entry);
        if (id === undefined) continue;
        expect(seen.has(id), `${stream}: ${id} again`).toBe(false);
        seen.add(id);
        if (entry.kind === 'event' && entry.event.type === 'race.status_changed') {
          const d = entry.event.data as Loose;
          expect(RANK[d.to] ?? 0, `${stream}: ${d.from} -> ${d.to}`).toBeGreaterThanOrEqual(
            RANK[d.from] ?? 0,
          );
        }
      }
    }
  }, 300_000);
});
