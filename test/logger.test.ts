import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.js';

function capture() {
  const out = new PassThrough();
  let text = '';
  out.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  return { out, text: () => text };
}

describe('the process logger', () => {
  it('writes one JSON object a line by default, secrets redacted', () => {
    const sink = capture();
    createLogger('info', 'json', sink.out).info(
      { config: { ADMIN_TOKEN: 'hunter2hunter2hunter2' } },
      'started',
    );
    const line = JSON.parse(sink.text().trim()) as { msg: string; config: { ADMIN_TOKEN: string } };
    expect(line.msg).toBe('started');
    expect(line.config.ADMIN_TOKEN).toBe('[redacted]');
  });

  it('writes human lines with LOG_FORMAT=pretty, secrets still redacted', () => {
    const sink = capture();
    const logger = createLogger('info', 'pretty', sink.out);
    logger.warn(
      { code: 'UPSTREAM_TIMEOUT', config: { ADMIN_TOKEN: 'hunter2hunter2hunter2' } },
      'upstream slow',
    );
    const text = stripVTControlCharacters(sink.text());
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: upstream slow\n/);
    expect(text).toContain('code: "UPSTREAM_TIMEOUT"');
    expect(text).toContain('"ADMIN_TOKEN": "[redacted]"');
    expect(text).not.toContain('hunter2');
    expect(() => JSON.parse(text.split('\n')[0]!)).toThrow();
  });

  it('stops with a one-line fix when pino-pretty is not installed (a production install)', () => {
    const missing = () => {
      throw new Error("Cannot find module 'pino-pretty'");
    };
    expect(() => createLogger('info', 'pretty', capture().out, missing)).toThrow(
      expect.objectContaining({
        code: 'RW_CONFIG_INVALID',
        problems: [
          'LOG_FORMAT=pretty needs pino-pretty, a development dependency this install lacks. Fix: unset LOG_FORMAT (JSON lines), or install the development dependencies (npm ci)',
        ],
      }),
    );
  });
});
