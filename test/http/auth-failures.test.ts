import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/clock.js';
import { authenticate } from '../../src/delivery/core/auth.js';
import { createSqliteOutbox, registerWebhooks } from '../../src/delivery/webhooks/index.js';
import { createAuthFailures, sameSecret } from '../../src/http/auth-failures.js';
import { createSqliteEventLog } from '../../src/store/sqlite/sqlite-event-log.js';
import { openMemoryDb, silentLogger } from '../delivery/webhooks/helpers.js';

const TOKEN = 'admin-token-0123456789';
const LIMITS = { maxFailures: 3, windowMs: 60_000 };

describe('failed credentials per address', () => {
  it('refuses an address once it has spent its failures, until its window ends', async () => {
    const clock = createManualClock(1_000_000);
    const failures = createAuthFailures(LIMITS, clock);
    for (let i = 0; i < 3; i++) {
      expect(failures.check('203.0.113.9')).toEqual({ ok: true });
      failures.fail('203.0.113.9');
    }
    expect(failures.check('203.0.113.9')).toEqual({ ok: false, retryAfterMs: 60_000 });
    expect(failures.check('203.0.113.10')).toEqual({ ok: true });
    await clock.advance(59_999);
    expect(failures.check('203.0.113.9')).toEqual({ ok: false, retryAfterMs: 1 });
    await clock.advance(1);
    expect(failures.check('203.0.113.9')).toEqual({ ok: true });
  });

  it('remembers at most maxAddresses addresses', () => {
    const failures = createAuthFailures({ ...LIMITS, maxFailures: 1, maxAddresses: 2 }, createManualClock());
    for (const a of ['a', 'b', 'c']) failures.fail(a);
    expect(['a', 'b', 'c'].map((a) => failures.check(a).ok)).toEqual([true, false, false]);
  });

  it('compares secrets of any length by digest', () => {
    expect(sameSecret(TOKEN, TOKEN)).toBe(true);
    expect(sameSecret('', TOKEN)).toBe(false);
    expect(sameSecret(`${TOKEN}x`, TOKEN)).toBe(false);
    expect(sameSecret(TOKEN.slice(0, -1), TOKEN)).toBe(false);
  });

  it('refuses unknown API keys with rate_limited past the limit, before looking the key up', () => {
    const failures = createAuthFailures(LIMITS, createManualClock());
    const config = {
      allowAnonymous: true,
      keys: new Map([['good-key', { name: 'partner-a', scope: 'partner' as const }]]),
      failures,
    };
    const codes = ['k1', 'k2', 'k3', 'good-key'].map((key) => {
      const r = authenticate(config, key, '198.51.100.7');
      return r.ok ? 'ok' : r.code;
    });
    expect(codes).toEqual(['unauthorized', 'unauthorized', 'unauthorized', 'rate_limited']);
    // Anonymous access spends nothing, and other addresses are untouched.
    expect(authenticate(config, undefined, '198.51.100.7').ok).toBe(true);
    expect(authenticate(config, 'good-key', '198.51.100.8').ok).toBe(true);
  });
});

describe('admin token guessing', () => {
  let app: FastifyInstance;
  let close: () => Promise<void>;
  afterEach(async () => {
    await close();
    await app.close();
  });

  it('answers 429 after the configured failures, even to the right token, until the window ends', async () => {
    app = Fastify({ loggerInstance: silentLogger }) as unknown as FastifyInstance;
    const clock = createManualClock(Date.parse('2026-11-26T10:00:00Z'));
    const db = openMemoryDb();
    const service = await registerWebhooks(app, {
      store: {
        outbox: createSqliteOutbox(db, { now: () => clock.now() }),
        feed: createSqliteEventLog({ db }).feed,
      },
      clock,
      logger: silentLogger,
      config: { adminToken: TOKEN, authFailures: createAuthFailures(LIMITS, clock) },
      send: async () => ({ headers: {}, body: '', error: 'offline' }),
    });
    close = () => service.close();
    await app.ready();
    const get = (token: string, remoteAddress = '203.0.113.9') =>
      app.inject({
        method: 'GET',
        url: '/v1/webhooks/endpoints',
        headers: { authorization: `Bearer ${token}` },
        remoteAddress,
      });

    const guesses = [];
    for (const token of ['a', 'wrong-token-0123456789', `${TOKEN}0`, 'b', TOKEN]) {
      guesses.push((await get(token)).statusCode);
    }
    expect(guesses).toEqual([401, 401, 401, 429, 429]);
    const refused = await get(TOKEN);
    expect(refused.headers['retry-after']).toBe('60');
    expect(refused.json().error.code).toBe('rate_limited');
    expect((await get(TOKEN, '203.0.113.10')).statusCode).toBe(200);

    await clock.advance(60_000);
    expect((await get(TOKEN)).statusCode).toBe(200);
  });
});
