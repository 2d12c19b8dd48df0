/** Errors of the Redis adapters: a stale leader's write, or Redis that cannot be reached. */

export type RedisStoreErrorCode =
  /** The append carried a fencing token older than one already seen: another node holds the lease now. */
  | 'fenced'
  /** A Redis command failed (connection lost, timeout, server error). Nothing is known to be written. */
  | 'redis_unavailable'
  /** A stream moved on between reading its head and writing, more times than the append retries. */
  | 'append_conflict'
  /** Redis held something this adapter did not write (a foreign key under our prefix). */
  | 'corrupt_state';

export class RedisStoreError extends Error {
  readonly code: RedisStoreErrorCode;

  constructor(code: RedisStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = this.constructor.name;
    this.code = code;
  }
}

/** Runs a Redis call and turns a failure of Redis itself into a typed `redis_unavailable` error. */
export async function redisCall<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (err instanceof RedisStoreError) throw err;
    const detail = err instanceof Error ? err.message : String(err);
    throw new RedisStoreError('redis_unavailable', `${what}: ${detail}`, { cause: err });
  }
}
