/**
 * What the process holds, for `/v1/ops` beside the budget: its memory (RSS and V8 heap used) and, with the
 * SQLite store, the bytes of its database files in DATA_DIR (the database, its WAL and shared memory).
 */
import { statSync } from 'node:fs';
import type { ProcessUsage } from '@racewire/client/protocol';
import { databasePath } from '../store/index.js';

/** A wire type of /v1/ops: the SDK declares it. */
export type { ProcessUsage };

const sizeOf = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** `dataDir` only when the store keeps its data there (STORE=sqlite). */
export function processUsage(dataDir?: string): () => ProcessUsage {
  return () => {
    const { rss, heapUsed } = process.memoryUsage();
    const usage: ProcessUsage = { rssBytes: rss, heapUsedBytes: heapUsed };
    if (dataDir === undefined) return usage;
    const db = databasePath(dataDir);
    return { ...usage, dataDirBytes: sizeOf(db) + sizeOf(`${db}-wal`) + sizeOf(`${db}-shm`) };
  };
}
