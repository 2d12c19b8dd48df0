import { describe, expect, it } from 'vitest';
import { createManualClock } from '../src/clock.js';
import { throttledLog } from '../src/log-throttle.js';
import type { Logger } from '../src/logger.js';

function recorder() {
  const lines: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  const at = (level: string) => (obj: Record<string, unknown>, msg: string) =>
    lines.push({ level, obj, msg });
  return { logger: { warn: at('warn'), error: at('error') } as unknown as Logger, lines };
}

const ioerr = Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' });

describe('a throttled log', () => {
  it('logs a failure repeated every second once, then once a minute with the count', async () => {
    const wall = createManualClock(0);
    const { logger, lines } = recorder();
    const log = throttledLog({ logger, level: 'error', message: 'outbox unreadable', wall, everyMs: 60_000 });
    for (let s = 0; s < 130; s++) {
      log(ioerr, { step: s });
      await wall.advance(1000);
    }
    // 130 failures over 130 s: at 0 s, at 60 s (59 not logged), at 120 s (59 more).
    expect(lines.map((l) => [l.level, l.msg, l.obj.step, l.obj.repeated])).toEqual([
      ['error', 'outbox unreadable', 0, undefined],
      ['error', 'outbox unreadable', 60, 59],
      ['error', 'outbox unreadable', 120, 59],
    ]);
    expect(lines[0]?.obj.err).toBe(ioerr);
  });

  it('keys by code, so a different failure is logged at once', () => {
    const wall = createManualClock(0);
    const { logger, lines } = recorder();
    const log = throttledLog({ logger, level: 'warn', message: 'not written', wall });
    log(ioerr);
    log(ioerr);
    log(Object.assign(new Error('database or disk is full'), { code: 'SQLITE_FULL' }));
    log(new Error('no code'));
    log(new Error('no code'));
    expect(lines.map((l) => (l.obj.err as { code?: string }).code ?? (l.obj.err as Error).message)).toEqual([
      'SQLITE_IOERR',
      'SQLITE_FULL',
      'no code',
    ]);
  });
});
