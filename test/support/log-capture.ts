/** A pino logger whose lines are kept, parsed, for tests that assert what is logged. */
import { Writable } from 'node:stream';
import { pino } from 'pino';

export interface LogLine {
  level: number;
  msg: string;
  [key: string]: unknown;
}

export function captureLogs(level: pino.Level = 'info'): { logger: pino.Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)) as LogLine);
        cb();
      },
    }),
  );
  return { logger, lines };
}
