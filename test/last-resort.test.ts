import { EventEmitter } from 'node:events';
import { expect, it } from 'vitest';
import { logUnhandledRejections } from '../src/last-resort.js';
import { captureLogs } from './support/log-capture.js';

it('logs a rejection nothing handled with code unhandled_rejection, and the process goes on', () => {
  const { logger, lines } = captureLogs();
  const proc = new EventEmitter();
  logUnhandledRejections(logger, proc);
  proc.emit('unhandledRejection', new Error('Reached the max retries per request limit'), Promise.resolve());
  expect(lines).toMatchObject([
    {
      level: 50,
      code: 'unhandled_rejection',
      msg: 'a promise rejected with no handler',
      err: { message: 'Reached the max retries per request limit' },
    },
  ]);
});
