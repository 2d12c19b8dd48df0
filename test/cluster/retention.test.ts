import { createHash } from 'node:crypto';
/**
 * Scheduled retention: cutoffs from the race clock and the settings, runs on the wall clock's interval, only
 * while this node leads, failures logged and retried; and a SQLite log past its retention shrinks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../src/clock.js';
import { leaseLeadership } from '../../src/cluster/leadership.js';
import { createMemoryLease, createMemoryLeaseState } from '../../src/cluster/memory-lease.js';
import {
  createRetention,
  RETENTION_INTERVAL_MS,
  retentionMetrics,
  retentionPolicy,
} from '../../src/cluster/retention.js';
import { loadConfig } from '../../src/config.js';
import type { ExpireResult, RetentionPolicy } from '../../src/store/ports.js';
import { openDatabase } from '../../src/store/sqlite/database.js';
import { createSqliteEventLog } from '../../src/store/sqlite/sqlite-event-log.js';
import { silentLogger } from '../delivery/webhooks/helpers.js';
import { event, patch, snapshot } from '../store/entry-builders.js';
import { captureLogs } from '../support/log-capture.js';

const RACE_NOW = Date.parse('2026-11-30T12:00:00.000Z');
const WALL_NOW = Date.parse('2026-11-25T08:00:00.000Z');
const settings = loadConfig({ EVENT_LOG_SETTLED_HOURS: '24', EVENT_LOG_RETAIN_DAYS: '7' });

/** A log that records the policy of each expire and answers `answer`. */
function recordingLog(answer: () => Promise<ExpireResult> = async () => ({ settled: 0, forgotten: 0 })) {
  const policies: RetentionPolicy[] = [];
  return {
    policies,
    cutoffs: () => policies.map((p) => [p.settledBefore.toISOString(), p.forgetBefore.toISOString()]),
    expire: (policy: RetentionPolicy) => {
      policies.push(policy);
      return answer();
    },
  };
}

/** Lets the job's step run (it starts on a promise turn, not on a timer). */
const settle = (clock: ManualClock) => clock.advance(0);

describe('retention policy', () => {
  it('puts the cutoffs the settled hours and the retained days before race time now', () => {
    expect(retentionPolicy(RACE_NOW, { EVENT_LOG_SETTLED_HOURS: 36, EVENT_LOG_RETAIN_DAYS: 3 })).toEqual({
      settledBefore: new Date('2026-11-29T00:00:00.000Z'),
      forgetBefore: new Date('2026-11-27T12:00:00.000Z'),
    });
  });
});

describe('scheduled retention', () => {
  it('runs at start and every interval of wall time, with cutoffs from the race clock at each run', async () => {
    const race = createManualClock(RACE_NOW);
    const wall = createManualClock(WALL_NOW);
    const log = recordingLog();
    const job = createRetention({ log, settings, raceClock: race, wallClock: wall, logger: silentLogger });
    await job.start();
    await settle(wall);
    expect(log.cutoffs()).toEqual([['2026-11-29T12:00:00.000Z', '2026-11-23T12:00:00.000Z']]);

    // The race clock runs ten times faster than the wall clock (the simulator's default speed).
    await race.advance(10 * (RETENTION_INTERVAL_MS - 1));
    await wall.advance(RETENTION_INTERVAL_MS - 1);
    expect(log.policies).toHaveLength(1);
    await race.advance(10);
    await wall.advance(1);
    expect(log.cutoffs()).toEqual([
      ['2026-11-29T12:00:00.000Z', '2026-11-23T12:00:00.000Z'],
      ['2026-11-29T13:40:00.000Z', '2026-11-23T13:40:00.000Z'],
    ]);

    await job.stop();
    await wall.advance(3 * RETENTION_INTERVAL_MS);
    expect(log.policies).toHaveLength(2);
  });

  it('logs what it settled and forgot, and counts it in the metrics', async () => {
    const wall = createManualClock(WALL_NOW);
    const { logger, lines } = captureLogs('info');
    const registry = new Registry();
    const log = recordingLog(async () => ({ settled: 12, forgotten: 3 }));
    const job = createRetention({
      log,
      settings,
      raceClock: createManualClock(RACE_NOW),
      wallClock: wall,
      logger,
      ...retentionMetrics(registry),
    });
    await job.start();
    await settle(wall);
    await wall.advance(RETENTION_INTERVAL_MS);
    await job.stop();
    const applied = lines.filter((l) => l.msg === 'event log retention applied');
    expect(
      applied.map(({ settled, forgotten, settledBefore, forgetBefore }) => ({
        settled,
        forgotten,
        settledBefore,
        forgetBefore,
      })),
    ).toEqual(
      Array(2).fill({
        settled: 12,
        forgotten: 3,
        settledBefore: '2026-11-29T12:00:00.000Z',
        forgetBefore: '2026-11-23T12:00:00.000Z',
      }),
    );
    const text = await registry.metrics();
    expect(text).toContain('racewire_event_log_expired_streams_total{outcome="settled"} 24');
    expect(text).toContain('racewire_event_log_expired_streams_total{outcome="forgotten"} 6');
    expect(text).toContain('racewire_event_log_retention_failures_total 0');
  });

  it('logs a failed run with its code, counts it, and runs again at the next interval', async () => {
    const wall = createManualClock(WALL_NOW);
    const { logger, lines } = captureLogs('info');
    const registry = new Registry();
    let calls = 0;
    const log = recordingLog(async () => {
      if (++calls === 1) throw Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
      return { settled: 1, forgotten: 0 };
    });
    const job = createRetention({
      log,
      settings,
      raceClock: createManualClock(RACE_NOW),
      wallClock: wall,
      logger,
      ...retentionMetrics(registry),
    });
    await job.start();
    await settle(wall);
    const failure = lines.find((l) => l.level === 50);
    expect(failure).toMatchObject({
      code: 'retention_failed',
      msg: 'event log retention failed: tried again at the next interval',
      err: { code: 'SQLITE_BUSY', message: 'database is locked' },
    });
    await wall.advance(RETENTION_INTERVAL_MS);
    await job.stop();
    expect(log.policies).toHaveLength(2);
    expect(lines.filter((l) => l.msg === 'event log retention applied')).toHaveLength(1);
    expect(await registry.metrics()).toContain('racewire_event_log_retention_failures_total 1');
  });

  it('runs only on the node that leads, and on the next leader after a hand-over', async () => {
    const wall = createManualClock(WALL_NOW);
    const race = createManualClock(RACE_NOW);
    const state = createMemoryLeaseState();
    const intervalMs = 10_000;
    const nodes = ['a', 'b'].map((id) => {
      const log = recordingLog();
      const lease = createMemoryLease({ state, nodeId: id, ttlMs: 3_000, clock: wall });
      const leadership = leaseLeadership(lease, silentLogger, id);
      leadership.lead(
        createRetention({
          log,
          settings,
          raceClock: race,
          wallClock: wall,
          logger: silentLogger,
          intervalMs,
        }),
      );
      return { log, leadership };
    });
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    await wall.advance(2 * intervalMs);
    expect([a.log.policies.length, b.log.policies.length]).toEqual([3, 0]);
    await a.leadership.close();
    // b takes the lease within a second of the release and runs at once, then every interval.
    await wall.advance(1_000);
    expect([a.log.policies.length, b.log.policies.length]).toEqual([3, 1]);
    await wall.advance(intervalMs);
    expect([a.log.policies.length, b.log.policies.length]).toEqual([3, 2]);
    await b.leadership.close();
  });
});

describe('retention on a SQLite log', () => {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-retention-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('shrinks the file once its streams are past the settings, keeping the new ones whole', async () => {
    const db = openDatabase(join(dir, 'racewire.db'));
    const log = createSqliteEventLog({ db });
    const pages = () => db.pragma('page_count', { simple: true }) as number;
    const hour = 3_600_000;
    // Ten races a day for nine days: a snapshot, then 40 patches each with a 4 KB value and an event. The
    // values are hashes, as hard to pack as real prices (patches are stored packed).
    const hashedValue = (day: number, r: number, i: number) => {
      let out = `${i}:`;
      for (let k = 0; out.length < 4096; k++)
        out += createHash('sha256').update(`${day}/${r}/${i}/${k}`).digest('base64');
      return out.slice(0, 4096);
    };
    for (let day = 0; day < 9; day++) {
      for (let r = 0; r < 10; r++) {
        const stream = `d${day}-r${r}`;
        const at = (i: number) => new Date(RACE_NOW - (9 - day) * 24 * hour + r * hour + i * 60_000);
        await log.append(stream, { entries: [snapshot({ v: 0 })], document: { v: 0 }, now: at(0) });
        for (let i = 1; i <= 40; i++) {
          const value = hashedValue(day, r, i);
          await log.append(stream, {
            entries: [patch([{ op: 'replace', path: '/v', value }]), event('odds')],
            document: { v: value },
            now: at(i),
          });
        }
      }
    }
    const before = pages();
    const wall = createManualClock(WALL_NOW);
    const expired: ExpireResult[] = [];
    const job = createRetention({
      log: { expire: async (policy) => expired[expired.push(await log.expire(policy)) - 1]! },
      settings,
      raceClock: createManualClock(RACE_NOW),
      wallClock: wall,
      logger: silentLogger,
    });
    await job.start();
    await settle(wall);
    await job.stop();
    // Days 0-1 (last written more than 7 days ago) forgotten, days 2-7 settled, day 8 (within 24 h) whole.
    expect(expired).toEqual([{ settled: 60, forgotten: 20 }]);
    expect(pages()).toBeLessThan(before / 4);
    const forgotten = await log.head('d0-r0');
    expect([forgotten.seq, forgotten.documentSeq, forgotten.document]).toEqual([81, 0, undefined]);
    const settled = await log.head('d7-r9');
    expect(settled.document).toEqual({ v: hashedValue(7, 9, 40) });
    expect(await log.read('d7-r9', 0)).toEqual({ ok: false, reason: 'too_old', head: settled });
    const whole = await log.read('d8-r0', 0);
    expect(whole.ok && whole.entries.map((e) => e.seq)).toEqual(Array.from({ length: 81 }, (_, i) => i + 1));
    // Another run at the same race time finds nothing more to do.
    expect(await log.expire(retentionPolicy(RACE_NOW, settings))).toEqual({ settled: 0, forgotten: 0 });
    await log.close();
    db.close();
  });
});
