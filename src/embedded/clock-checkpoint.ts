/**
 * Restart continuity for the embedded upstream (simulator or replay). Its clock runs ahead of the wall clock
 * (x10 by default) while DATA_DIR keeps documents from those later instants, so a restart at the wall-clock
 * time would rewind every race: Final back to Interim, results and scratchings seen again. The clock's
 * instant is therefore kept in DATA_DIR (`upstream-clock.json`), and a restart resumes from it.
 *
 * Cheap and durable: a few bytes written every second (whole, by src/atomic-file.ts, so a crash leaves the
 * old or the new file, never a torn one). While running, the instant written is `now + leadMs`, at
 * least as late as anything stored before the next write, so even after a crash the clock resumes at or
 * after every stored instant (a crash skips ahead a little, never back); a clean stop writes the exact
 * instant. The file names the upstream it belongs to (the simulator and its seed, or the recording), so a
 * DATA_DIR used with another upstream does not move this one's clock.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../atomic-file.js';
import { type Clock, systemClock } from '../clock.js';
import { throttledLog } from '../log-throttle.js';
import type { Logger } from '../logger.js';

export const CHECKPOINT_FILE = 'upstream-clock.json';

interface CheckpointBody {
  upstream: string;
  at: string;
}

/** The instant stored for `upstream` in `dir`, or undefined (none, another upstream's, or unreadable). */
export async function readCheckpoint(
  dir: string,
  upstream: string,
  logger: Logger,
): Promise<number | undefined> {
  let text: string;
  try {
    text = await readFile(join(dir, CHECKPOINT_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
      logger.warn({ err }, 'upstream clock checkpoint unreadable');
    return undefined;
  }
  try {
    const body = JSON.parse(text) as Partial<CheckpointBody>;
    const at = typeof body.at === 'string' ? Date.parse(body.at) : Number.NaN;
    if (body.upstream !== upstream || Number.isNaN(at)) return undefined;
    return at;
  } catch (err) {
    logger.warn({ err }, 'upstream clock checkpoint is not JSON; starting afresh');
    return undefined;
  }
}

async function writeCheckpoint(dir: string, upstream: string, at: number): Promise<void> {
  const body: CheckpointBody = { upstream, at: new Date(at).toISOString() };
  await writeFileAtomically(join(dir, CHECKPOINT_FILE), JSON.stringify(body));
}

export interface Checkpoints {
  /** Stops the periodic writes and writes the clock's exact instant (call once nothing more is stored). */
  stop(): Promise<void>;
}

/** Writes `clock.now() + leadMs` now and every `intervalMs` of wall-clock time until stopped. */
export function keepCheckpoints(opts: {
  dir: string;
  upstream: string;
  clock: Clock;
  leadMs: number;
  logger: Logger;
  intervalMs?: number;
  /** Paces the log of failed writes. @default systemClock */
  wall?: Clock;
}): Checkpoints {
  const { dir, upstream, clock, logger } = opts;
  // Every second on a full disk: one line a minute, with a count.
  const notWritten = throttledLog({
    logger,
    level: 'warn',
    message: 'upstream clock checkpoint not written',
    wall: opts.wall ?? systemClock,
  });
  let writing: Promise<void> = Promise.resolve();
  const write = (at: number) => {
    writing = writing.then(() => writeCheckpoint(dir, upstream, at)).catch(notWritten);
    return writing;
  };
  void write(clock.now() + opts.leadMs);
  const timer = setInterval(() => void write(clock.now() + opts.leadMs), opts.intervalMs ?? 1000);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await write(clock.now());
    },
  };
}
