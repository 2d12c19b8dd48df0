import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../src/events/envelope.js';
import { createRecentEvents } from '../../src/http/recent-events.js';

let seq = 0;
const event = (type: string, second: number): LogEntry => {
  seq++;
  const timestamp = new Date(Date.UTC(2026, 10, 23, 12, 0, second)).toISOString();
  return {
    kind: 'event',
    stream: 'r1',
    seq,
    timestamp,
    event: { id: `r1:${seq}`, type, timestamp, stream: 'r1', seq, meetingId: 'm1', raceId: 'r1', data: {} },
  };
};
const ids = (events: { id: string }[]) => events.map((e) => e.id);

describe('recent events', () => {
  it('lists newest first, odds moves only when asked, and ignores patches and snapshots', () => {
    const recent = createRecentEvents(10);
    recent.add([
      event('runner.scratched', 1),
      event('odds.changed', 2),
      { kind: 'snapshot', stream: 'r1', seq: 99, timestamp: '2026-11-23T12:00:02Z', document: {} },
      event('race.status_changed', 3),
    ]);
    const [scratched, odds, , status] = ['r1:1', 'r1:2', '', 'r1:3'];
    expect(ids(recent.list({ limit: 10, odds: false }))).toEqual([status, scratched]);
    expect(ids(recent.list({ limit: 10, odds: true }))).toEqual([status, odds, scratched]);
    expect(ids(recent.list({ limit: 1, odds: true }))).toEqual([status]);
  });

  it('keeps a bounded ring per kind, so odds moves never push other events out', () => {
    seq = 100;
    const recent = createRecentEvents(3);
    recent.add([event('runner.scratched', 1), event('race.jumped', 2)]);
    recent.add(Array.from({ length: 50 }, (_, i) => event('odds.changed', 3 + (i % 50))));
    const other = recent.list({ limit: 100, odds: false });
    expect(other.map((e) => e.type)).toEqual(['race.jumped', 'runner.scratched']);
    const all = recent.list({ limit: 100, odds: true });
    expect(all).toHaveLength(5);
    expect(all.slice(0, 3).map((e) => e.type)).toEqual(['odds.changed', 'odds.changed', 'odds.changed']);
  });

  it('keeps market events with the odds moves, so a busy market never pushes scratchings out', () => {
    seq = 200;
    const recent = createRecentEvents(3);
    recent.add([event('runner.scratched', 1)]);
    recent.add(
      ['market.big_bet', 'pool.total', 'odds.plunge', 'market.money_flow'].map((t, i) => event(t, 2 + i)),
    );
    expect(recent.list({ limit: 100, odds: false }).map((e) => e.type)).toEqual(['runner.scratched']);
    expect(recent.list({ limit: 100, odds: true }).map((e) => e.type)).toEqual([
      'market.money_flow',
      'odds.plunge',
      'pool.total',
      'runner.scratched',
    ]);
  });
});
