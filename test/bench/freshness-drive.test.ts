/**
 * The freshness bench is reproducible to the request: two runs of one seed send the same requests at the same
 * virtual instants and append the same events (issue 26: tuning the scheduler compares runs, so a difference
 * between two runs must come from the code, not the machine). Three busy minutes of the bench's window.
 */
import { describe, expect, it } from 'vitest';
import { drive } from '../../bench/support/freshness-drive.js';
import { BENCH_FROM } from '../../bench/support/freshness-metrics.js';
import { pickNext } from '../../src/watch/schedule/scheduler.js';

const MIN = 60_000;

async function journalOf(seed: number) {
  const sent: string[] = [];
  const { entries } = await drive({
    seed,
    from: BENCH_FROM + 50 * MIN,
    to: BENCH_FROM + 53 * MIN,
    rpm: 100,
    concurrency: 2,
    discoveryIntervalMs: 6_000,
    strategy: () => pickNext,
    onSend: (url, _world, now) => sent.push(`${now} ${url.pathname}${url.search}`),
  });
  const events = entries.flatMap((e) => (e.kind === 'event' ? [`${e.timestamp} ${e.event.type}`] : []));
  return { sent, events };
}

describe('the freshness bench’s run', () => {
  it('sends the same requests at the same instants and appends the same events on two runs of a seed', async () => {
    const first = await journalOf(7);
    const second = await journalOf(7);
    // Three minutes at 100 a minute, after the first listing of three days.
    expect(first.sent.length).toBeGreaterThanOrEqual(290);
    expect(first.events.length).toBeGreaterThan(0);
    expect(second.sent).toEqual(first.sent);
    expect(second.events).toEqual(first.events);
  }, 300_000);
});
