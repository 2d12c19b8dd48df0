import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createManualClock, systemClock } from '../../src/clock.js';
import { loadConfig } from '../../src/config.js';
import { ConfigError } from '../../src/config-error.js';
import { CHECKPOINT_FILE, keepCheckpoints, readCheckpoint } from '../../src/embedded/clock-checkpoint.js';
import { startUpstream } from '../../src/embedded/upstream.js';
import { startRacewire } from '../../src/runtime.js';
import { at, RECORDING } from '../fixtures/recordings/build-awapuni.js';
import { captureLogs } from '../support/log-capture.js';
import { startOnManualClock } from '../support/manual-service.js';

const silent = pino({ level: 'silent' });
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-upstream-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the upstream clock checkpoint', () => {
  it('is written ahead of the clock while running and exactly at stop, and read back only for its own upstream', async () => {
    const dir = tempDir();
    const clock = createManualClock(Date.parse('2026-01-01T10:00:00Z'));
    const checkpoints = keepCheckpoints({
      dir,
      upstream: 'simulator:seed=1',
      clock,
      leadMs: 20_000,
      logger: silent,
      intervalMs: 5,
    });
    await vi.waitFor(async () =>
      expect(await readCheckpoint(dir, 'simulator:seed=1', silent)).toBe(Date.parse('2026-01-01T10:00:20Z')),
    );
    await clock.advance(60_000);
    await vi.waitFor(async () =>
      expect(await readCheckpoint(dir, 'simulator:seed=1', silent)).toBe(Date.parse('2026-01-01T10:01:20Z')),
    );
    await clock.advance(1_000);
    await checkpoints.stop();
    expect(JSON.parse(readFileSync(join(dir, CHECKPOINT_FILE), 'utf8'))).toEqual({
      upstream: 'simulator:seed=1',
      at: '2026-01-01T10:01:01.000Z',
    });
    expect(await readCheckpoint(dir, 'simulator:seed=2', silent)).toBeUndefined();
    expect(await readCheckpoint(dir, `replay:${RECORDING}`, silent)).toBeUndefined();
  });

  it('is ignored when missing or unreadable', async () => {
    const dir = tempDir();
    expect(await readCheckpoint(dir, 'simulator:seed=1', silent)).toBeUndefined();
    writeFileSync(join(dir, CHECKPOINT_FILE), '{"upstream": "simulator:seed=1", "at": ');
    const { logger, lines } = captureLogs();
    expect(await readCheckpoint(dir, 'simulator:seed=1', logger)).toBeUndefined();
    expect(lines.map((l) => l.msg)).toEqual(['upstream clock checkpoint is not JSON; starting afresh']);
  });
});

describe('the upstream racewire starts', () => {
  it('is the racing API on the system clock when RACING_API_URL is set', async () => {
    const config = loadConfig({ RACING_API_URL: 'https://api.example/affiliates/v1/racing' });
    const upstream = await startUpstream({ config, logger: silent });
    expect(upstream).toMatchObject({
      kind: 'racing API',
      baseUrl: 'https://api.example/affiliates/v1/racing',
    });
    expect(upstream.clock).toBe(systemClock);
  });

  it('replays a recording from its first record, or from REPLAY_FROM, and resumes where DATA_DIR left it', async () => {
    const dir = tempDir();
    // `kept`: the store keeps its data in `dir` (STORE=sqlite), so the clock resumes from there.
    const start = async (env: Record<string, string>, kept = true) => {
      const config = loadConfig({ REPLAY_FILE: RECORDING, ...env });
      const upstream = await startUpstream({
        config,
        logger: silent,
        clockFrom: (o) => createManualClock(o),
        checkpointDir: kept ? dir : undefined,
      });
      upstream.start();
      const origin = upstream.clock.now();
      await upstream.close();
      return { kind: upstream.kind, origin };
    };
    expect(await start({}, false)).toEqual({ kind: 'replay', origin: at('00:40:00') });
    expect(await start({ REPLAY_FROM: '2025-07-17T00:52:00Z' })).toEqual({
      kind: 'replay',
      origin: at('00:52:00'),
    });
    // That run stopped at 00:52 and kept it: the next one resumes there rather than at the first record.
    expect(await start({})).toEqual({ kind: 'replay', origin: at('00:52:00') });
    // A checkpoint of another upstream (the simulator) does not move a replay's clock.
    writeFileSync(
      join(dir, CHECKPOINT_FILE),
      JSON.stringify({ upstream: 'simulator:seed=1', at: '2025-07-17T01:30:00.000Z' }),
    );
    expect(await start({})).toEqual({ kind: 'replay', origin: at('00:40:00') });
  });

  it('warns once at start-up, naming the missing identification headers, when RACING_API_URL is set', async () => {
    const replay = await startUpstream({
      config: loadConfig({ REPLAY_FILE: RECORDING, STORE: 'memory' }),
      logger: silent,
      clockFrom: (o) => createManualClock(o),
    });
    const { logger, lines } = captureLogs();
    const racewire = await startRacewire({
      config: loadConfig({
        RACING_API_URL: replay.baseUrl,
        RACING_API_FROM: 'ops@example.com',
        STORE: 'memory',
        PORT: '0',
        HOST: '127.0.0.1',
      }),
      logger,
      listen: false,
    });
    await racewire.stop();
    await replay.close();
    const warnings = lines.filter((l) => l.msg.startsWith('the racing API asks callers to identify'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({
      level: 40,
      component: 'upstream',
      missing: ['X-Partner', 'X-Partner-ID'],
    });
    expect(JSON.stringify(lines)).not.toContain('ops@example.com');
  });

  it('refuses a replay and a racing API at once', () => {
    expect(() => loadConfig({ REPLAY_FILE: RECORDING, RACING_API_URL: 'https://api.example/x' })).toThrow(
      new ConfigError(['REPLAY_FILE replays a recording in place of RACING_API_URL: set one of them']),
    );
  });

  it('counts what RECORD_DIR could not write in racewire_recording_dropped_total, and keeps polling', async () => {
    const blocked = join(tempDir(), 'not-a-directory');
    writeFileSync(blocked, '');
    const service = await startOnManualClock({
      STORE: 'memory',
      REPLAY_FILE: RECORDING,
      // The recording was made without the market options (docs/record-replay.md).
      MARKET_DATA: 'off',
      RECORD_DIR: blocked,
    });
    try {
      const metrics = async () =>
        (await service.racewire.app.inject({ method: 'GET', url: '/metrics' })).body;
      // The writer flushes every second of wall-clock time; meanwhile the poller goes on.
      await vi.waitFor(
        async () => {
          await service.step(1000);
          expect(await metrics()).toMatch(/racewire_recording_dropped_total\{reason="write_failed"\} [1-9]/);
        },
        { timeout: 15_000, interval: 50 },
      );
      expect(await metrics()).toMatch(
        /racewire_upstream_requests_total\{operation="event",outcome="2xx"\} [1-9]/,
      );
    } finally {
      await service.stop();
    }
  });
});
