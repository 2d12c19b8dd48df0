/**
 * The shipped recording (real payloads of Awapuni R1, 2025-07-17) replayed through the whole service on a
 * manual clock gives exactly the expected events; and what racewire records while doing so, replayed in
 * turn, gives byte-identical patches and the same events.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import type { LogEntry, RaceEvent } from '../../src/events/envelope.js';
import { at, MEETING_ID, RACE_ID, RECORDING } from '../fixtures/recordings/build-awapuni.js';
import { replayThroughService } from './service-harness.js';

// biome-ignore lint/suspicious/noExplicitAny: reading event payloads loosely
type Loose = any;
/** A minute past the last record: the race is Final with Final dividends, and settled. */
const UNTIL = at('01:01:00');
/** Each run polls the race about 400 times through the whole pipeline: seconds of work, more on a busy machine. */
const HEAVY = 120_000;

/** One line per event: its type and the facts that make it that event. */
function describeEvent(event: RaceEvent): string {
  const d = event.data as Loose;
  switch (event.type) {
    case 'odds.changed':
      return `odds.changed #${d.runner.runnerNumber} ${d.market} ${d.from} -> ${d.to}`;
    case 'race.status_changed':
      return `race.status_changed ${d.from} -> ${d.to}`;
    case 'race.jumped':
      return `race.jumped at ${d.actualStart} (+${d.delaySeconds} s)`;
    case 'race.results':
      return `race.results ${d.kind} ${d.results.map((r: Loose) => `${r.position}:#${r.runnerNumber}`).join(' ')}`;
    case 'race.dividends':
      return `race.dividends ${d.status} ${d.dividends.map((x: Loose) => `${x.productName} ${x.description} ${x.dividend}`).join(', ')}`;
    default:
      return `${event.type} ${JSON.stringify(d)}`;
  }
}

const events = (entries: LogEntry[]) => entries.flatMap((e) => (e.kind === 'event' ? [e.event] : []));

const dividends = (status: string) =>
  `race.dividends ${status} Pool First4 2:4:7:6 1350.4, Pool Place 2 1.7, Pool Place 4 1.9, Pool Place 7 3.7, Pool Quinella 2:4 13.7, Pool Trifecta 2:4:7 396.6, Pool Win 2 6.6`;
const placings = '1:#2 2:#4 3:#7 4:#6 5:#5 6:#1 7:#8 8:#3';

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('a recording replayed through the whole service', () => {
  it(
    'gives exactly the expected events, each within seconds of the change it reports',
    async () => {
      const streams = await replayThroughService({ recording: RECORDING, until: UNTIL });
      expect([...streams.keys()]).toEqual([RACE_ID, `meeting:${MEETING_ID}`]);
      const race = events(streams.get(RACE_ID)!);
      expect(race.map(describeEvent)).toEqual([
        'odds.changed #1 fixed_win 5.5 -> 5',
        'odds.changed #8 fixed_win 51 -> 41',
        'race.status_changed Open -> Closed',
        'race.jumped at 2025-07-17T00:52:46.000Z (+166 s)',
        'race.status_changed Closed -> Interim',
        `race.results interim ${placings}`,
        dividends('Interim'),
        'race.status_changed Interim -> Final',
        `race.results final ${placings}`,
        dividends('Final'),
      ]);
      // Recorded at 00:45:00, 00:52:46, 00:55:00 and 01:00:00: seen within one discovery interval (6 s).
      const changedAt = [at('00:45:00'), at('00:52:46'), at('00:55:00'), at('01:00:00')];
      const eventsPerChange = [2, 2, 3, 3];
      let i = 0;
      changedAt.forEach((t, change) => {
        for (let n = 0; n < (eventsPerChange[change] as number); n++, i++) {
          const ts = Date.parse(race[i]!.timestamp);
          expect(ts).toBeGreaterThanOrEqual(t);
          expect(ts).toBeLessThan(t + 6_000);
        }
      });
      // The meeting stream: its first listing, then the race's status in three patches; no meeting events.
      expect(streams.get(`meeting:${MEETING_ID}`)!.map((e) => e.kind)).toEqual([
        'snapshot',
        'patch',
        'patch',
        'patch',
      ]);
    },
    HEAVY,
  );

  it(
    'records what it receives so that replaying that recording gives byte-identical patches and the same events',
    async () => {
      const recordDir = mkdtempSync(join(tmpdir(), 'racewire-record-'));
      dirs.push(recordDir);
      const first = await replayThroughService({
        recording: RECORDING,
        until: UNTIL,
        recordDir,
        apiKey: 'S3CRET-KEY',
      });
      expect(readdirSync(recordDir)).toEqual(['upstream-2025-07-17.jsonl.gz']);
      const recorded = gunzipSync(readFileSync(join(recordDir, 'upstream-2025-07-17.jsonl.gz'))).toString();
      const lines = recorded
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Loose);
      // Every request racewire made: the three days' pages and the race, polled every few seconds near its jump.
      expect(new Set(lines.map((l) => l.path))).toEqual(new Set(['/meetings', `/events/${RACE_ID}`]));
      expect(lines.filter((l) => l.path === `/events/${RACE_ID}`).length).toBeGreaterThan(20);
      for (const line of lines) {
        expect(Object.keys(line)).toEqual(['at', 'method', 'path', 'query', 'status', 'headers', 'body']);
        expect(
          Object.keys(line.headers).every((h) => h === 'content-type' || h.startsWith('x-ratelimit')),
        ).toBe(true);
      }
      expect(recorded).not.toContain('S3CRET-KEY');

      const second = await replayThroughService({ recording: recordDir, until: UNTIL });
      expect([...second.keys()]).toEqual([...first.keys()]);
      for (const [stream, entries] of first) {
        const again = second.get(stream)!;
        const changes = (list: LogEntry[]) =>
          list.flatMap((e) =>
            e.kind === 'patch'
              ? [JSON.stringify(e.ops)]
              : e.kind === 'snapshot'
                ? [JSON.stringify(e.document)]
                : [],
          );
        expect(changes(again)).toEqual(changes(entries));
        expect(events(again).map((e) => [e.type, e.data])).toEqual(
          events(entries).map((e) => [e.type, e.data]),
        );
      }
    },
    HEAVY,
  );
});
