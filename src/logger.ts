/** The process logger: structured pino, with every place a secret can appear redacted. */
import { createRequire } from 'node:module';
import { pino } from 'pino';
import { ConfigError } from './config-error.js';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'config.RACING_API_KEY',
  'config.API_KEYS',
  'config.ADMIN_TOKEN',
  'config.METRICS_TOKEN',
  '*.secret',
  '*.token',
];

export type Logger = pino.Logger;
export type LogFormat = 'json' | 'pretty';

/** pino-pretty's stream factory: a development dependency, so absent from a production install. */
export type PrettyFactory = (options: Record<string, unknown>) => NodeJS.WritableStream;

const loadPretty = (): PrettyFactory => createRequire(import.meta.url)('pino-pretty') as PrettyFactory;

function prettyStream(
  destination: NodeJS.WritableStream | number,
  load: () => PrettyFactory,
): NodeJS.WritableStream {
  let pretty: PrettyFactory;
  try {
    pretty = load();
  } catch {
    throw new ConfigError([
      'LOG_FORMAT=pretty needs pino-pretty, a development dependency this install lacks. Fix: unset LOG_FORMAT (JSON lines), or install the development dependencies (npm ci)',
    ]);
  }
  // In this process and synchronous: a line is written before the next one is formatted, as with JSON.
  return pretty({
    destination,
    sync: true,
    colorize: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
  });
}

/**
 * JSON lines by default (collectors parse them); `pretty` formats the same records for a person. Redaction
 * happens before either, so a secret is hidden in both. `destination` is stdout unless a test passes one.
 */
export function createLogger(
  level: string,
  format: LogFormat = 'json',
  destination: NodeJS.WritableStream | number = 1,
  load: () => PrettyFactory = loadPretty,
): Logger {
  const options = { level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } };
  if (format === 'pretty') return pino(options, prettyStream(destination, load));
  return destination === 1 ? pino(options) : pino(options, destination as NodeJS.WritableStream);
}
