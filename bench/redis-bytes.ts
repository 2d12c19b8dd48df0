/**
 * What a Redis's memory is, by key family (`support/redis-bytes.ts`): the Redis counterpart of
 * `bench/log-bytes.ts`. Point it at the soak's server (`--keep-redis yes` leaves it up) or any other.
 *
 *   npx tsx bench/redis-bytes.ts redis://127.0.0.1:41400 [MATCH]
 */
import { Redis } from 'ioredis';
import { familiesTable, redisBytes } from './support/redis-bytes.js';

const url = process.argv[2];
if (!url) throw new Error('usage: npx tsx bench/redis-bytes.ts <redis url> [match]');
const redis = new Redis(url, { maxRetriesPerRequest: 1 });
try {
  console.log(familiesTable(await redisBytes(redis, process.argv[3] ?? '*')));
} finally {
  redis.disconnect();
}
