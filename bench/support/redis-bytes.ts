/**
 * What a Redis data set's memory is, by key family: every key (SCAN) with its `MEMORY USAGE ... SAMPLES 0`
 * (every element counted), summed per family. A family is the key with each hash tag's id replaced by `*`
 * and its kind kept (`racewire:{race:123}:doc` -> `racewire:{race:*}:doc`,
 * `racewire:webhooks:{ep:9f..}:bodies` -> `racewire:webhooks:{ep:*}:bodies`), so one race's keys and
 * another's add up. The Redis counterpart of `bench/log-bytes.ts` (the soak prints it hourly with
 * `--redis-families yes`; `bench/redis-bytes.ts` reads any Redis).
 */
import type { Redis } from 'ioredis';

export interface Family {
  family: string;
  type: string;
  keys: number;
  bytes: number;
  /** The largest key of the family and its bytes. */
  largest: string;
  largestBytes: number;
}

export interface RedisBytes {
  usedMemory: number;
  /** `used_memory_dataset`: used_memory less Redis's own overhead (clients, buffers, the dict tables). */
  dataset: number;
  families: Family[];
}

/** `racewire:{race:AB-12}:doc` -> `racewire:{race:*}:doc`; a tag without a kind becomes `{*}`. */
export function familyOf(key: string): string {
  return key.replace(/\{([^}]*)\}/g, (_, id: string) => {
    const colon = id.indexOf(':');
    return colon < 0 ? (id === 'shared' ? '{shared}' : '{*}') : `{${id.slice(0, colon)}:*}`;
  });
}

const field = (info: string, name: string): number =>
  Number(info.match(new RegExp(`^${name}:(\\d+)`, 'm'))?.[1] ?? 0);

export async function redisBytes(redis: Redis, match = '*'): Promise<RedisBytes> {
  const by = new Map<string, Family>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', match, 'COUNT', 1000);
    cursor = next;
    const pipe = redis.pipeline();
    for (const key of keys) {
      pipe.call('MEMORY', 'USAGE', key, 'SAMPLES', '0');
      pipe.type(key);
    }
    const out = (await pipe.exec()) ?? [];
    keys.forEach((key, i) => {
      const bytes = Number(out[2 * i]?.[1] ?? 0);
      const type = String(out[2 * i + 1]?.[1] ?? '?');
      const name = familyOf(key);
      const f = by.get(name) ?? { family: name, type, keys: 0, bytes: 0, largest: key, largestBytes: 0 };
      f.keys++;
      f.bytes += bytes;
      if (bytes > f.largestBytes) {
        f.largest = key;
        f.largestBytes = bytes;
      }
      by.set(name, f);
    });
  } while (cursor !== '0');
  const info = await redis.info('memory');
  return {
    usedMemory: field(info, 'used_memory'),
    dataset: field(info, 'used_memory_dataset'),
    families: [...by.values()].sort((a, b) => b.bytes - a.bytes),
  };
}

const mb = (n: number) => (n / 1e6).toFixed(1);

/** One line: used_memory, then the families over `min` bytes as `family MB (keys)`. */
export function familiesLine(r: RedisBytes, min = 1e6): string {
  const summed = r.families.reduce((s, f) => s + f.bytes, 0);
  const shown = r.families.filter((f) => f.bytes >= min);
  const rest = summed - shown.reduce((s, f) => s + f.bytes, 0);
  return `used_memory ${mb(r.usedMemory)} MB, keys' MEMORY USAGE ${mb(summed)} MB: ${shown
    .map((f) => `${f.family} ${mb(f.bytes)} (${f.keys})`)
    .join(', ')}, the rest ${mb(rest)}`;
}

/** A table: family | type | keys | MB | share of the keys' sum | largest key (MB). */
export function familiesTable(r: RedisBytes): string {
  const summed = r.families.reduce((s, f) => s + f.bytes, 0);
  const rows = r.families.map(
    (f) =>
      `| \`${f.family}\` | ${f.type} | ${f.keys} | ${mb(f.bytes)} | ${((100 * f.bytes) / summed).toFixed(1)} % | ${mb(f.largestBytes)} |`,
  );
  return [
    `used_memory ${mb(r.usedMemory)} MB (dataset ${mb(r.dataset)} MB), keys' MEMORY USAGE summed ${mb(summed)} MB`,
    '| family | type | keys | MB | share | largest key MB |',
    '|---|---|---:|---:|---:|---:|',
    ...rows,
  ].join('\n');
}
