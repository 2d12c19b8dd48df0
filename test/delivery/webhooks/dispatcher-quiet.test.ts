/** Issue 27: the dispatcher logged a full stack every second on SQLITE_IOERR (66 lines in 66 s). */
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import { resolveWebhookConfig } from '../../../src/delivery/webhooks/config.js';
import { createDispatcher } from '../../../src/delivery/webhooks/dispatch/dispatcher.js';
import type { Outbox } from '../../../src/delivery/webhooks/ports.js';
import type { Logger } from '../../../src/logger.js';

describe('the dispatcher on a store that fails every read', () => {
  it('logs the failure once, then once a minute with a count', async () => {
    const clock = createManualClock(Date.parse('2026-11-26T10:00:00Z'));
    const ioerr = () => Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }));
    const failing = new Proxy({}, { get: () => ioerr });
    const outbox = { queue: failing, endpoints: failing, history: failing } as unknown as Outbox;
    const lines: Array<{ repeated?: number; msg: string }> = [];
    const record = (obj: { repeated?: number }, msg: string) => lines.push({ repeated: obj.repeated, msg });
    const logger = { error: record, warn: record, info: () => {}, debug: () => {} } as unknown as Logger;
    const dispatcher = createDispatcher({
      outbox,
      clock,
      logger,
      config: resolveWebhookConfig({ pollIntervalMs: 1000 }, clock),
      send: async () => ({ headers: {}, body: '' }),
    });
    await dispatcher.start();
    for (let s = 0; s < 66; s++) await clock.advance(1000);
    expect(lines).toEqual([
      { repeated: undefined, msg: 'webhook dispatcher could not read the outbox' },
      { repeated: 59, msg: 'webhook dispatcher could not read the outbox' },
    ]);
    await dispatcher.stop(0);
  });
});
