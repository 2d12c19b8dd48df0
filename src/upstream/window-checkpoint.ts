/**
 * Where a single node keeps its request window between processes: `DATA_DIR/request-window.json`, the start
 * times (wall-clock epoch ms) the window still holds, replaced whole on every admission (src/atomic-file.ts),
 * so a SIGKILL right after a send leaves the file with that send in it. At most 100 starts a minute, a couple
 * of kilobytes each: cheap enough to write ahead of every request.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomically } from '../atomic-file.js';
import type { Logger } from '../logger.js';

export const WINDOW_CHECKPOINT_FILE = 'request-window.json';

/** What the window keeps between processes. */
export interface WindowCheckpoint {
  /** The starts the last process held, or undefined when nothing is readable (none written, or unreadable). */
  read(): Promise<number[] | undefined>;
  /** Replaces what is kept; resolves once it is durable. */
  write(starts: readonly number[]): Promise<void>;
}

// Bounded: a window never holds more starts than its budget, and the budget is at most a few hundred.
const checkpointBody = z.object({
  starts: z.array(z.number().int().nonnegative()).max(10_000),
});

export function fileWindowCheckpoint(dir: string, logger: Logger): WindowCheckpoint {
  const file = join(dir, WINDOW_CHECKPOINT_FILE);
  return {
    async read() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        logger.warn({ err, file }, 'request window checkpoint unreadable; treating the last window as full');
        return undefined;
      }
      let parsed: ReturnType<typeof checkpointBody.safeParse>;
      try {
        parsed = checkpointBody.safeParse(JSON.parse(text));
      } catch (err) {
        logger.warn({ err, file }, 'request window checkpoint is not JSON; treating the last window as full');
        return undefined;
      }
      if (!parsed.success) {
        logger.warn(
          { file, issues: parsed.error.issues.length },
          'request window checkpoint is malformed; treating the last window as full',
        );
        return undefined;
      }
      return parsed.data.starts;
    },
    write: (starts) => writeFileAtomically(file, JSON.stringify({ starts })),
  };
}
