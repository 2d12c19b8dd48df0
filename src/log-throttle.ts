/**
 * Repeated identical errors, logged once with a count: a loop that fails every second (a dispatcher on
 * SQLITE_IOERR, a checkpoint on a full disk) logs the first failure of a code at once, then at most one line
 * per `everyMs` of wall time carrying `repeated` (failures not logged since the last line) instead of one
 * line, with a full stack, per attempt. Keyed by the error's code (else its message), per call site.
 */
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

export type ThrottledLog = (err: unknown, fields?: Record<string, unknown>) => void;

/** Distinct codes remembered per call site; past it the oldest is forgotten (and may log again at once). */
const MAX_KEYS = 100;

export function throttledLog(opts: {
  logger: Logger;
  level: 'warn' | 'error';
  message: string;
  wall: Clock;
  /** @default 60_000 */
  everyMs?: number;
}): ThrottledLog {
  const everyMs = opts.everyMs ?? 60_000;
  const last = new Map<string, { at: number; repeated: number }>();
  return (err, fields) => {
    const code = (err as { code?: unknown })?.code;
    const key = typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
    const now = opts.wall.now();
    const seen = last.get(key);
    if (seen && now - seen.at < everyMs) {
      seen.repeated++;
      return;
    }
    const repeated = seen?.repeated ?? 0;
    opts.logger[opts.level]({ ...fields, err, ...(repeated > 0 ? { repeated } : {}) }, opts.message);
    last.delete(key);
    last.set(key, { at: now, repeated: 0 });
    if (last.size > MAX_KEYS) last.delete(last.keys().next().value as string);
  };
}
