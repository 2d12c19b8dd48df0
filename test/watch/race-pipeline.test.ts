import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryBus } from '../../src/bus/bus.js';
import { createManualClock } from '../../src/clock.js';
import type { LogEntry } from '../../src/events/envelope.js';
import { createMemoryEventLog, openSqliteEventLog } from '../../src/store/index.js';
import { type EventResponse, eventResponseSchema } from '../../src/upstream/schemas.js';
import { createRacePipeline } from '../../src/watch/track/race-pipeline.js';
import { captureLogs } from '../support/log-capture.js';
import { change, type Loose, openPayload, RACE_ID, runner } from './support.js';

const logger = pino({ level: 'silent' });
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A race day in five payloads: odds move, a scratching, the jump, results. */
function script(): EventResponse[] {
  const open = openPayload();
  const firmer = change(open, (d) => {
    runner(d, 1).odds.fixed_win = 4.2;
  });
  const scratched = change(firmer, (d) => {
    const r = runner(d, 3) as Loose;
    r.is_scratched = true;
    r.scratch_time = 1752712000;
  });
  const closed = change(scratched, (d) => {
    d.race.status = 'Closed';
  });
  const interim = change(closed, (d) => {
    d.race.status = 'Interim';
    // The top four, as a real list holds at least (a shorter one is confirmed first, trust.ts).
    d.results = [2, 4, 1, 5].map((number, k) => {
      const r = runner(d, number);
      const row = { position: k + 1, name: r.name, barrier: r.barrier, runner_number: number };
      return { ...row, margin_length: 0, entrant_id: r.entrant_id };
    });
  });
  return [open, firmer, scratched, closed, interim];
}

function harness(log: ReturnType<typeof createMemoryEventLog>) {
  const bus = createMemoryBus();
  const seen: LogEntry[] = [];
  bus.subscribe((entries) => seen.push(...entries));
  const clock = createManualClock(Date.parse('2025-07-17T00:30:00Z'));
  return { pipeline: createRacePipeline({ log, bus, clock, logger }), seen };
}

describe('race pipeline', () => {
  it('appends a snapshot first, then patches with their events, and publishes exactly what it appended', async () => {
    const log = createMemoryEventLog();
    const { pipeline, seen } = harness(log);
    const outcomes = [];
    for (const payload of script()) outcomes.push(await pipeline.process(RACE_ID, payload));
    expect(outcomes.map((o) => o.kind)).toEqual(['changed', 'changed', 'changed', 'changed', 'changed']);
    expect(outcomes.at(-1)).toMatchObject({ status: 'Interim', dividends: 'none' });
    expect(seen.map((e) => e.seq)).toEqual(seen.map((_, i) => i + 1));
    expect(seen[0]!.kind).toBe('snapshot');
    const types = seen.flatMap((e) => (e.kind === 'event' ? [e.event.type] : []));
    expect(types).toContain('odds.changed');
    expect(types).toContain('runner.scratched');
    expect(types).toContain('race.results');
    const read = await log.read(RACE_ID, 0);
    expect(read.ok && read.entries).toEqual(seen);
  });

  it('makes no entry for an unchanged payload and none for a payload without runners', async () => {
    const log = createMemoryEventLog();
    const { pipeline, seen } = harness(log);
    const [open] = script();
    await pipeline.process(RACE_ID, open!);
    expect(await pipeline.process(RACE_ID, open!)).toMatchObject({ kind: 'unchanged' });
    const broken = change(open!, (d) => {
      d.runners = null;
    });
    expect(await pipeline.process(RACE_ID, broken)).toMatchObject({ kind: 'rejected' });
    expect(seen.length).toBe(1);
  });

  it('diffs against the log after an append whose reply was lost, so no event is made twice', async () => {
    const log = createMemoryEventLog();
    let loseReply = false;
    const flaky = {
      ...log,
      async append(...args: Parameters<typeof log.append>) {
        const stored = await log.append(...args);
        if (loseReply) throw new Error('connection reset after write');
        return stored;
      },
    };
    const { pipeline } = harness(flaky);
    const [open, firmer, scratched] = script();
    await pipeline.process(RACE_ID, open!);
    loseReply = true;
    await expect(pipeline.process(RACE_ID, firmer!)).rejects.toThrow('connection reset');
    loseReply = false;
    expect(await pipeline.process(RACE_ID, firmer!)).toMatchObject({ kind: 'unchanged' });
    await pipeline.process(RACE_ID, scratched!);
    const read = await log.read(RACE_ID, 0);
    const types = read.ok ? read.entries.flatMap((e) => (e.kind === 'event' ? [e.event.type] : [])) : [];
    expect(types.filter((t) => t === 'odds.changed')).toHaveLength(1);
    expect(types.filter((t) => t === 'runner.scratched')).toHaveLength(1);
  });

  it('continues after a restart on the same data directory with no duplicate and no missing sequence', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'racewire-restart-'));
    dirs.push(dir);
    const payloads = script();
    const open = () => openSqliteEventLog(dir, 1000);

    const first = open();
    const a = harness(first);
    for (const payload of payloads.slice(0, 3)) await a.pipeline.process(RACE_ID, payload);
    await first.close();

    const second = open();
    const b = harness(second);
    // The last payload seen before the stop arrives again after it: nothing new happened, nothing is emitted.
    expect(await b.pipeline.process(RACE_ID, payloads[2]!)).toMatchObject({ kind: 'unchanged' });
    for (const payload of payloads.slice(3)) await b.pipeline.process(RACE_ID, payload);
    const read = await second.read(RACE_ID, 0);
    await second.close();

    if (!read.ok) throw new Error('read failed');
    expect(read.entries.map((e) => e.seq)).toEqual(read.entries.map((_, i) => i + 1));
    expect(read.entries).toEqual([...a.seen, ...b.seen]);
    const eventIds = read.entries.flatMap((e) => (e.kind === 'event' ? [e.event.id] : []));
    expect(new Set(eventIds).size).toBe(eventIds.length);
    expect(b.seen[0]!.kind).toBe('patch');
  });
});

describe('race pipeline: dropped payloads and rows', () => {
  it('drops a stale payload and logs each dropped row with the race and its path', async () => {
    const { logger: captured, lines } = captureLogs('warn');
    const pipeline = createRacePipeline({
      log: createMemoryEventLog(),
      bus: createMemoryBus(),
      clock: createManualClock(Date.parse('2025-07-17T00:30:00Z')),
      logger: captured,
    });
    const at = (payload: EventResponse, time: string) => ({
      ...payload,
      header: { ...payload.header, generated_time: time },
    });
    await pipeline.process(RACE_ID, at(openPayload(), '2025-07-17T00:30:05.5Z'));
    const stale = await pipeline.process(RACE_ID, at(openPayload(), '2025-07-17T00:30:05.4Z'));
    expect(stale).toMatchObject({ kind: 'rejected', code: 'stale' });
    const badRow = eventResponseSchema.parse(
      change(at(openPayload(), '2025-07-17T00:30:06Z'), (d) => {
        delete d.runners[2].entrant_id;
      }),
    );
    const outcome = await pipeline.process(RACE_ID, badRow);
    expect(outcome).toMatchObject({
      kind: 'unchanged',
      droppedRows: [{ path: 'data.runners[2]', code: 'bad_row' }],
    });
    expect(lines.map((l) => [l.msg, l.raceId, l.code, l.path])).toEqual([
      ['payload rejected: no events', RACE_ID, 'stale', undefined],
      ['row dropped', RACE_ID, 'bad_row', 'data.runners[2]'],
    ]);
  });

  it('after a restart while a price is held, reports the favourite against the one last reported', async () => {
    const log = createMemoryEventLog();
    const clock = createManualClock(Date.parse('2025-07-17T00:30:00Z'));
    const bus = createMemoryBus();
    const seen: LogEntry[] = [];
    bus.subscribe((entries) => seen.push(...entries));
    const options = { log, bus, clock, logger };
    let tick = 0;
    // Upstream flags no favourite: Ruji (4, 4.2) leads on price, then its price is withdrawn while Tickford
    // (1) firms to 4.0. The withdrawal is held until confirmed; the process restarts in between.
    const payload = (withdrawn: boolean) => {
      const p = change(openPayload(), (d) => {
        for (const r of d.runners) r.favourite = false;
        if (withdrawn) {
          runner(d, 4).odds.fixed_win = null;
          runner(d, 1).odds.fixed_win = 4;
        }
      });
      p.header.generated_time = new Date(clock.now()).toISOString();
      return p;
    };
    const next = async (pipeline: ReturnType<typeof createRacePipeline>, withdrawn: boolean) => {
      await clock.advance(tick++ === 0 ? 0 : 10_000);
      return pipeline.process(RACE_ID, payload(withdrawn));
    };
    const first = createRacePipeline(options);
    await next(first, false);
    expect(await next(first, true)).toMatchObject({ kind: 'changed', pending: true });
    const second = createRacePipeline(options);
    for (let i = 0; i < 3; i++) await next(second, true);
    const favourites = seen.flatMap((e) =>
      e.kind === 'event' && e.event.type === 'race.favourite_changed' ? [e.event.data] : [],
    );
    expect(favourites).toMatchObject([{ from: { runnerNumber: 4 }, to: { runnerNumber: 1 }, price: 4 }]);
  });

  it('after a restart, drops a payload generated before the last change the log holds', async () => {
    const log = createMemoryEventLog();
    const clock = createManualClock(Date.parse('2025-07-17T00:30:00Z'));
    const options = { log, bus: createMemoryBus(), clock, logger };
    const at = (payload: EventResponse, time: string) => ({
      ...payload,
      header: { ...payload.header, generated_time: time },
    });
    const first = createRacePipeline(options);
    await first.process(RACE_ID, at(openPayload(), '2025-07-17T00:29:59Z'));
    const firmer = change(openPayload(), (d) => {
      runner(d, 1).odds.fixed_win = 4.2;
    });
    await first.process(RACE_ID, at(firmer, '2025-07-17T00:30:00Z'));
    await clock.advance(60_000);
    const second = createRacePipeline(options);
    expect(await second.process(RACE_ID, at(openPayload(), '2025-07-17T00:29:59.5Z'))).toMatchObject({
      kind: 'rejected',
      code: 'stale',
    });
    expect(await second.process(RACE_ID, at(firmer, '2025-07-17T00:31:00Z'))).toMatchObject({
      kind: 'unchanged',
    });
  });
});
