/** The process logger: structured pino, with every place a secret can appear redacted. */
import { pino } from 'pino';

export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'headers.authorization',
  'config.RACING_API_KEY',
  'config.API_KEYS',
  'config.ADMIN_TOKEN',
  '*.secret',
  '*.token',
];

export type Logger = pino.Logger;

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: '[redacted]' } });
}
