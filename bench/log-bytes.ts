/**
 * What a DATA_DIR's bytes are: pages per table (SQLite's dbstat), then the event log's entries by kind and
 * by event type, and what brotli at the checkpoints' setting (packDocument) makes of each entry.
 *
 *   npx tsx bench/log-bytes.ts <DATA_DIR>
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { packDocument } from '../src/store/sqlite/checkpoints.js';

const dir = process.argv[2];
if (!dir) throw new Error('usage: npx tsx bench/log-bytes.ts <DATA_DIR>');
const db = new Database(join(dir, 'racewire.db'), { readonly: true });
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;

const tables = db
  .prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 6')
  .all() as Array<{ name: string; bytes: number }>;
console.log('pages by table:', tables.map((t) => `${t.name} ${mb(t.bytes)}`).join(', '));

const rows = db.prepare('SELECT entry FROM log_entries').iterate() as Iterable<{ entry: string | Buffer }>;
const by = new Map<string, { n: number; raw: number; packed: number }>();
let packMs = 0;
let count = 0;
for (const { entry } of rows) {
  if (typeof entry !== 'string') continue;
  const parsed = JSON.parse(entry) as { kind: string; event?: { type: string } };
  const key = parsed.kind === 'event' ? `event ${parsed.event?.type}` : parsed.kind;
  const t0 = performance.now();
  const packed = packDocument(entry).length;
  packMs += performance.now() - t0;
  count++;
  const slot = by.get(key) ?? { n: 0, raw: 0, packed: 0 };
  by.set(key, { n: slot.n + 1, raw: slot.raw + entry.length, packed: slot.packed + packed });
}
const total = [...by.values()].reduce((a, b) => ({
  n: a.n + b.n,
  raw: a.raw + b.raw,
  packed: a.packed + b.packed,
}));
console.log(
  `entries ${total.n}: ${mb(total.raw)} as text, ${mb(total.packed)} packed (${((packMs / count) * 1000).toFixed(0)} us per entry)`,
);
for (const [key, s] of [...by].sort((a, b) => b[1].raw - a[1].raw).slice(0, 8)) {
  console.log(
    `  ${key}: ${s.n} entries, ${mb(s.raw)} -> ${mb(s.packed)} (${Math.round(s.raw / s.n)} -> ${Math.round(s.packed / s.n)} bytes each)`,
  );
}
db.close();
