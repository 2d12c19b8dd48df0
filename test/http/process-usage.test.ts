import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { processUsage } from '../../src/http/process-usage.js';

const dir = mkdtempSync(join(tmpdir(), 'racewire-usage-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('process usage for /v1/ops', () => {
  it('counts the SQLite database, its WAL and shared memory, and nothing else in DATA_DIR', () => {
    writeFileSync(join(dir, 'racewire.db'), Buffer.alloc(4096));
    writeFileSync(join(dir, 'racewire.db-wal'), Buffer.alloc(1000));
    writeFileSync(join(dir, 'upstream-clock.json'), Buffer.alloc(50));
    const usage = processUsage(dir)();
    expect(usage.dataDirBytes).toBe(5096);
    expect(usage.rssBytes).toBeGreaterThan(usage.heapUsedBytes);
  });

  it('reports no disk for a store that does not keep its data in DATA_DIR', () => {
    expect(Object.keys(processUsage()()).sort()).toEqual(['heapUsedBytes', 'rssBytes']);
  });
});
