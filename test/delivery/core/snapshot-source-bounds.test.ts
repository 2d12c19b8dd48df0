/**
 * The hub's position per stream (snapshot-source.ts: the seq last seen of each stream, and its head) is
 * bounded by count, as docs/operations.md lists it: 20,000 streams, the least recently seen going first. A
 * race day brings about 1,700 streams (the Redis soak, docs/benchmarks.md), so the bound holds about twelve.
 */
import { expect, it } from 'vitest';
import { SnapshotSource } from '../../../src/delivery/core/snapshot-source.js';
import type { LogEntry } from '../../../src/events/envelope.js';
import { createFeed } from '../feed.js';

const snapshotEntry = (stream: string): LogEntry => ({
  kind: 'snapshot',
  stream,
  seq: 1,
  timestamp: '2026-11-19T17:00:00.000Z',
  document: null,
});

it('keeps the seq of 20,000 streams and forgets the least recently seen beyond them', () => {
  const source = new SnapshotSource(createFeed().log, 1024);
  for (let i = 0; i < 20_000; i++) source.observe([snapshotEntry(`race:R${i}`)]);
  expect(source.latest('race:R0')).toEqual({ seq: 1, epoch: undefined });
  expect(source.latest('race:R19999')).toEqual({ seq: 1, epoch: undefined });

  // R0 was just read, so R1 is now the least recently seen.
  source.observe([snapshotEntry('race:R20000')]);
  expect(source.latest('race:R1')).toBeUndefined();
  expect(source.latest('race:R0')).toEqual({ seq: 1, epoch: undefined });
  expect(source.latest('race:R20000')).toEqual({ seq: 1, epoch: undefined });
});
