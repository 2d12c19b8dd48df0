/**
 * Whether the store takes writes, as the appends found it: a store that cannot write (a full disk,
 * SQLITE_FULL on every write; Redis away) makes readiness fail with the reason, and holds every upstream
 * request (the request window admits none) so the budget is not spent on fetches that cannot be stored.
 * While it fails, a small write probe runs every `retryMs` of wall time; the first write that succeeds (the
 * probe's or an append's) makes it ready and lets polling resume.
 */
import type { Clock } from '../clock.js';
import type { ReadinessCheck } from '../http/readiness-state.js';
import type { Logger } from '../logger.js';
import { EventLogError } from '../store/errors.js';
import type { EventLog } from '../store/ports.js';
import { type RateWindow, waitForSlot } from '../upstream/rate-window.js';

/** Refusals that say nothing of the store's health: another node's term, a lost race, a bad change. */
const NOT_A_WRITE_FAILURE = new Set(['fenced', 'append_conflict']);

export interface WriteHealth {
  /** The log, whose appends report what they found. */
  log: EventLog;
  /** The request window, admitting nothing while the store cannot write. */
  gate(window: RateWindow): RateWindow;
  readiness: ReadinessCheck;
  failing(): { reason: string; since: number } | undefined;
  close(): void;
}

export function watchWrites(opts: {
  log: EventLog;
  /** A small write to the store (never to the log): throws when the store cannot write. */
  probe: () => Promise<void>;
  /** Wall clock: when the probe runs and the failure started. */
  clock: Clock;
  logger: Logger;
  /** @default 5_000 */
  retryMs?: number;
}): WriteHealth {
  const { clock, logger } = opts;
  const retryMs = opts.retryMs ?? 5_000;
  let failure: { reason: string; since: number } | undefined;
  let probing: AbortController | undefined;

  const succeeded = () => {
    if (!failure) return;
    logger.info({ since: new Date(failure.since).toISOString() }, 'store writes again: polling resumes');
    failure = undefined;
    probing?.abort();
    probing = undefined;
  };
  const failed = (err: unknown) => {
    const code = (err as { code?: unknown }).code;
    if (err instanceof EventLogError || (typeof code === 'string' && NOT_A_WRITE_FAILURE.has(code))) return;
    const reason = `${typeof code === 'string' ? `${code}: ` : ''}${(err as Error).message ?? String(err)}`;
    if (failure) return;
    failure = { reason, since: clock.now() };
    logger.error({ reason }, 'the store cannot write: not ready, polling paused until it can');
    probe();
  };
  const probe = () => {
    const stop = new AbortController();
    probing = stop;
    void (async () => {
      while (!stop.signal.aborted) {
        try {
          await clock.sleep(retryMs, stop.signal);
          await opts.probe();
          succeeded();
        } catch {
          // Still failing (or stopped): look again after retryMs.
        }
      }
    })();
  };

  const log: EventLog = Object.create(opts.log);
  log.append = async (...args) => {
    try {
      const out = await opts.log.append(...args);
      succeeded();
      return out;
    } catch (err) {
      failed(err);
      throw err;
    }
  };

  return {
    log,
    gate(window) {
      const tryAcquire = async () =>
        failure ? { admitted: false as const, retryInMs: retryMs } : window.tryAcquire();
      return {
        tryAcquire,
        sendWithinMs: window.sendWithinMs,
        acquire: (signal) => waitForSlot(tryAcquire, clock, signal),
        stats: () => window.stats(),
      };
    },
    readiness: {
      name: 'store',
      check: async () => {
        if (failure)
          return {
            ok: false,
            detail: { reason: failure.reason, since: new Date(failure.since).toISOString() },
          };
        await opts.log.head('readiness-probe');
        return { ok: true };
      },
    },
    failing: () => failure,
    close() {
      probing?.abort();
    },
  };
}
