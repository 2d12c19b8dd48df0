/**
 * What a Redis's memory is, by key family (`support/redis-bytes.ts`), then the event log's entries (every
 * `<prefix>{<stream>}:log` stream) by kind and event type, as stored and as brotli at the checkpoints' setting
 * would make them: the Redis counterpart of `bench/log-bytes.ts`. Point it at the soak's server
 * (`--keep-redis yes` leaves it up) or any other.
 *
 *   npx tsx bench/redis-bytes.ts redis://127.0.0.1:41400 [prefix]
 */
import { Redis } from 'ioredis';
import { packDocument, unpackDocument } from '../src/store/sqlite/checkpoints.js';
import { familiesTable, redisBytes } from './support/redis-bytes.js';

const url = process.argv[2];
if (!url) throw new Error('usage: npx tsx bench/redis-bytes.ts <redis url> [prefix]');
const prefix = process.argv[3] ?? 'racewire:';
const redis = new Redis(url, { maxRetriesPerRequest: 1 });
const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
try {
  console.log(familiesTable(await redisBytes(redis, `${prefix}*`)));
  const by = new Map<string, { n: number; stored: number; text: number; packed: number }>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}{*}:log`, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      for (const [, fields] of await redis.xrangeBuffer(key, '-', '+')) {
        const name = fields[0]?.toString();
        const value = fields[1] ?? Buffer.alloc(0);
        // 'e': the entry's JSON; 'z': packed (brotli) JSON.
        const text = name === 'z' ? unpackDocument(value) : value.toString('utf8');
        const parsed = JSON.parse(text) as { kind?: string; event?: { type: string } };
        const kind = parsed.kind ?? 'event';
        const slot = `${kind === 'event' ? `event ${parsed.event?.type}` : kind} (${name})`;
        const s = by.get(slot) ?? { n: 0, stored: 0, text: 0, packed: 0 };
        s.n++;
        s.stored += value.length;
        s.text += Buffer.byteLength(text);
        s.packed += name === 'z' ? value.length : packDocument(text).length;
        by.set(slot, s);
      }
    }
  } while (cursor !== '0');
  console.log('\nentries by kind (field): count, stored, as text, packed');
  for (const [slot, s] of [...by].sort((a, b) => b[1].stored - a[1].stored).slice(0, 10)) {
    console.log(
      `  ${slot}: ${s.n}, ${mb(s.stored)} (${Math.round(s.stored / s.n)} B each), ${mb(s.text)}, ${mb(s.packed)} (${Math.round(s.packed / s.n)} B)`,
    );
  }
} finally {
  redis.disconnect();
}
