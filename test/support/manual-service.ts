/**
 * racewire as a whole (runtime, upstream, poller, pipelines, log, delivery) on a manual clock, for tests that
 * drive it through simulated time. The clock moves only when `step` is called, and only once no upstream
 * request is in flight: an upstream answers after real I/O (sockets, reading a recording), and time must not
 * run past a request in flight.
 */
import { vi } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { type Racewire, startRacewire } from '../../src/runtime.js';
import { openSqliteEventLog } from '../../src/store/index.js';

export interface ManualService {
  racewire: Racewire;
  clock: ManualClock;
  /** The instant the upstream clock started at. */
  origin: number;
  /** Moves the clock `ms` on, then waits until no upstream request is in flight. */
  step(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/** Replaces global fetch with one that counts exchanges in flight, body included. */
function countingFetch(): { inFlight: () => number; restore: () => void } {
  const real = globalThis.fetch;
  let inFlight = 0;
  vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
    inFlight++;
    try {
      const res = await real(url, init);
      const body = await res.text();
      return new Response(body, { status: res.status, headers: res.headers });
    } finally {
      inFlight--;
    }
  });
  return { inFlight: () => inFlight, restore: () => vi.unstubAllGlobals() };
}

/** Starts racewire with `env` (over quiet test defaults), its upstream clock a manual one. */
export async function startOnManualClock(env: Record<string, string>): Promise<ManualService> {
  const network = countingFetch();
  let clock: ManualClock | undefined;
  let racewire: Racewire;
  try {
    racewire = await startRacewire({
      config: loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', ...env }),
      listen: false,
      clockFrom: (origin) => {
        clock = createManualClock(origin);
        return clock;
      },
    });
  } catch (err) {
    network.restore();
    throw err;
  }
  if (!clock) throw new Error('the upstream did not take the manual clock');
  const manual = clock;
  return {
    racewire,
    clock: manual,
    origin: manual.now(),
    async step(ms) {
      await manual.advance(ms);
      while (network.inFlight() > 0) await new Promise((r) => setImmediate(r));
    },
    async stop() {
      try {
        await racewire.stop();
      } finally {
        network.restore();
      }
    },
  };
}

/** Every stream of the SQLite log in `dataDir`, entries in order. */
export async function readLog(dataDir: string): Promise<Map<string, LogEntry[]>> {
  const log = openSqliteEventLog(dataDir, 10_000_000);
  try {
    const out = new Map<string, LogEntry[]>();
    for (const stream of (await log.streams()).sort()) {
      const read = await log.read(stream, 0);
      if (!read.ok) throw new Error(`stream ${stream} not readable: ${read.reason}`);
      out.set(stream, read.entries);
    }
    return out;
  } finally {
    await log.close();
  }
}
