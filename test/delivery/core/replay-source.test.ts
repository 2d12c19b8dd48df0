/**
 * Replay pages (replay-source.ts): read once per variant and shared between resuming clients; a full page is
 * kept, the last short page only while the node has seen nothing newer; a page from another epoch is refused.
 */
import { describe, expect, it } from 'vitest';
import { ReplaySource } from '../../../src/delivery/core/replay-source.js';
import { SnapshotSource } from '../../../src/delivery/core/snapshot-source.js';
import { createFeed } from '../feed.js';
import { raceDoc } from './harness.js';

function setup() {
  const feed = createFeed();
  let reads = 0;
  const read = feed.log.read.bind(feed.log);
  feed.log.read = (...args) => {
    reads++;
    return read(...args);
  };
  const snapshots = new SnapshotSource(feed.log, 1024 * 1024, feed.clock);
  feed.bus.subscribe((entries) => snapshots.observe(entries));
  return { feed, replays: new ReplaySource(feed.log, snapshots, 2, 1024 * 1024), reads: () => reads };
}

describe('replay pages', () => {
  it('reads a page once for every client of a variant, and once more for another variant', async () => {
    const { feed, replays, reads } = setup();
    for (let n = 0; n < 4; n++) await feed.publishDoc('R1', raceDoc('R1', n));
    const { epoch } = await feed.log.head('R1');
    const [a, b] = await Promise.all([
      replays.read('R1', 0, epoch, 'partner', {}),
      replays.read('R1', 0, epoch, 'partner', {}),
    ]);
    expect(reads()).toBe(1);
    expect(a.ok && b.ok && a.page === b.page).toBe(true);
    expect(a.ok && a.page).toMatchObject({ lastSeq: 2, full: true });
    await replays.read('R1', 0, epoch, 'partner', {});
    expect(reads()).toBe(1); // a full page never changes: kept
    await replays.read('R1', 0, epoch, 'public', {});
    expect(reads()).toBe(2);
    expect(replays.bytes()).toBeGreaterThan(0);
  });

  it('reuses the last short page only until the node sees a newer entry', async () => {
    const { feed, replays, reads } = setup();
    for (let n = 0; n < 3; n++) await feed.publishDoc('R1', raceDoc('R1', n));
    const { epoch } = await feed.log.head('R1');
    const first = await replays.read('R1', 2, epoch, 'partner', {});
    expect(first.ok && first.page).toMatchObject({ lastSeq: 3, full: false });
    await replays.read('R1', 2, epoch, 'partner', {});
    expect(reads()).toBe(1);
    await feed.publishDoc('R1', raceDoc('R1', 3));
    const again = await replays.read('R1', 2, epoch, 'partner', {});
    expect(reads()).toBe(2);
    expect(again.ok && again.page.frames.map((f) => f?.meta?.seq)).toEqual([3, 4]);
  });

  it('answers epoch_mismatch for a position of another epoch, and too_old below the window', async () => {
    const feed = createFeed({ window: 2 });
    const replays = new ReplaySource(feed.log, new SnapshotSource(feed.log, 1024, feed.clock), 10, 1024);
    for (let n = 0; n < 5; n++) await feed.publishDoc('R1', raceDoc('R1', n));
    const { epoch } = await feed.log.head('R1');
    expect(await replays.read('R1', 4, 'another', 'partner', {})).toMatchObject({
      ok: false,
      reason: 'epoch_mismatch',
    });
    expect(await replays.read('R1', 1, epoch, 'partner', {})).toMatchObject({ ok: false, reason: 'too_old' });
  });
});
