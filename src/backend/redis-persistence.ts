/**
 * Whether the Redis racewire starts on keeps its data across its own restart. Webhook endpoints and their
 * secrets live only in Redis with STORE=redis: a Redis with neither the append-only file nor RDB snapshots
 * (`appendonly no`, `save ""`) loses them all on a restart. Such a Redis stops the start with a coded error
 * unless REDIS_ALLOW_VOLATILE=true. A managed Redis that refuses CONFIG (ElastiCache, Memorystore, ...)
 * cannot be asked: the start goes on with a warning, since those services persist or replicate on their
 * own terms and the generation key (redis-generation.ts) still shouts if the data goes (docs/operations.md).
 */
import type { Redis } from 'ioredis';
import type { Logger } from '../logger.js';

export class RedisVolatileError extends Error {
  readonly code = 'RW_REDIS_VOLATILE';
  constructor(readonly found: { appendonly: string; save: string }) {
    // No URL here: it may carry a password, and the operator knows which Redis REDIS_URL names.
    super(
      `the Redis of REDIS_URL keeps nothing across its restart (appendonly ${found.appendonly}, save ${JSON.stringify(found.save)}), so a restart of it would lose every webhook endpoint and its secret`,
    );
    this.name = this.constructor.name;
  }
}

export type PersistenceFinding =
  | { kind: 'persistent'; appendonly: string; save: string }
  | { kind: 'volatile'; appendonly: string; save: string }
  /** The server refused CONFIG GET (renamed, ACL): `reason` is its reply. */
  | { kind: 'unchecked'; reason: string };

/** Pure: persistent when the append-only file is on or any snapshot schedule is set. */
export function judgePersistence(appendonly: string, save: string): 'persistent' | 'volatile' {
  return appendonly.trim().toLowerCase() === 'yes' || save.trim() !== '' ? 'persistent' : 'volatile';
}

/** `CONFIG GET name` answers [name, value]; an unknown parameter answers []. */
const configValue = async (redis: Pick<Redis, 'config'>, name: string): Promise<string> => {
  const reply = (await redis.config('GET', name)) as unknown as string[];
  return reply[1] ?? '';
};

/** Asks the server; a refused CONFIG is a finding, any other failure (Redis away) rejects. */
export async function findPersistence(redis: Pick<Redis, 'config'>): Promise<PersistenceFinding> {
  try {
    const [appendonly, save] = [await configValue(redis, 'appendonly'), await configValue(redis, 'save')];
    return { kind: judgePersistence(appendonly, save), appendonly, save };
  } catch (err) {
    // A reply from the server (ERR unknown command, NOPERM) means it answered but will not say.
    if ((err as Error).name === 'ReplyError') return { kind: 'unchecked', reason: (err as Error).message };
    throw err;
  }
}

/** Throws RedisVolatileError for a volatile Redis unless allowed; logs what it could not check. */
export async function requirePersistence(
  redis: Pick<Redis, 'config'>,
  allowVolatile: boolean,
  logger: Logger,
): Promise<PersistenceFinding | undefined> {
  if (allowVolatile) return undefined;
  const found = await findPersistence(redis);
  if (found.kind === 'volatile') throw new RedisVolatileError(found);
  if (found.kind === 'unchecked') {
    logger.warn(
      { code: 'RW_REDIS_PERSISTENCE_UNCHECKED', reply: found.reason },
      'Redis refused CONFIG GET, so whether it persists its data is not known: make sure it does (a restart without it loses every webhook endpoint; /readyz reports such a loss)',
    );
  }
  return found;
}
