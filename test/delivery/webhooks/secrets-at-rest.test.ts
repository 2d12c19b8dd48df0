/**
 * SECRETS_KEY (issue 27): webhook endpoint secrets sealed with AES-256-GCM in both endpoint stores, through
 * the one codec (secret-codec.ts). The stored bytes (the SQLite file and its WAL; every Redis key of the
 * outbox) hold no plaintext secret; the outbox answers the plaintext (the dispatcher signs with it, the export
 * hands it to admins); another key, or none, is a coded error naming the endpoint, not garbage.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../src/clock.js';
import { loadConfig } from '../../../src/config.js';
import { generateSecret } from '../../../src/delivery/webhooks/dispatch/signer.js';
import { createRedisOutbox, createSqliteOutbox, type Outbox } from '../../../src/delivery/webhooks/index.js';
import type { NewEndpoint } from '../../../src/delivery/webhooks/model.js';
import {
  plainSecrets,
  requireSecretsOpen,
  SecretsKeyError,
  sealedSecrets,
} from '../../../src/delivery/webhooks/secret-codec.js';
import { startRacewire } from '../../../src/runtime.js';
import { describeStartupFailure } from '../../../src/startup-failure.js';
import { openDatabase } from '../../../src/store/sqlite/database.js';
import { describeWithRedis } from '../../support/redis.js';
import { redisBackends } from './backends.js';

const K1 = 'a1'.repeat(32);
const K2 = 'b2'.repeat(32);

const newEndpoint = (id: string, secret: string): NewEndpoint => ({
  id,
  url: 'https://hooks.example/racewire',
  kind: 'standard',
  description: '',
  eventTypes: ['*'],
  filters: {},
  enabled: true,
  secret,
});

describe('the secret codec', () => {
  it('opens what it sealed, for any secret and endpoint id, and never seals twice alike', () => {
    const codec = sealedSecrets(K1);
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), fc.string({ minLength: 1 }), (id, secret) => {
        const sealed = codec.seal(id, secret);
        expect(codec.open(id, sealed)).toBe(secret);
        expect(codec.seal(id, secret)).not.toBe(sealed);
      }),
    );
  });

  it('refuses another key, another endpoint, altered bytes and a missing key, with codes', () => {
    const sealed = sealedSecrets(K1).seal('ep_1', 'whsec_abc');
    const refusal = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return err instanceof SecretsKeyError
          ? [err.code, err.endpointId, err.message.includes('whsec')]
          : err;
      }
      return 'opened';
    };
    expect(refusal(() => sealedSecrets(K2).open('ep_1', sealed))).toEqual([
      'RW_SECRETS_KEY_WRONG',
      'ep_1',
      false,
    ]);
    expect(refusal(() => sealedSecrets(K1).open('ep_2', sealed))).toEqual([
      'RW_SECRETS_KEY_WRONG',
      'ep_2',
      false,
    ]);
    // One character of the ciphertext changed (9 bytes: 12 base64url characters, none of them padding).
    const flipped = `${sealed.slice(0, -2)}${sealed.at(-2) === 'A' ? 'B' : 'A'}${sealed.slice(-1)}`;
    expect(refusal(() => sealedSecrets(K1).open('ep_1', flipped))).toEqual([
      'RW_SECRETS_KEY_WRONG',
      'ep_1',
      false,
    ]);
    expect(refusal(() => sealedSecrets(K1).open('ep_1', 'rwsec1.x'))).toEqual([
      'RW_SECRETS_KEY_WRONG',
      'ep_1',
      false,
    ]);
    expect(refusal(() => plainSecrets.open('ep_1', sealed))).toEqual([
      'RW_SECRETS_KEY_MISSING',
      'ep_1',
      false,
    ]);
    // Stored before the key was set: read as it is.
    expect(sealedSecrets(K1).open('ep_1', 'whsec_plain')).toBe('whsec_plain');
  });
});

/** Creates an endpoint, rotates its secret, and checks what the outbox answers. */
async function storeTwoSecrets(outbox: Outbox) {
  const [first, second] = [generateSecret(), generateSecret()];
  await outbox.endpoints.createEndpoint(newEndpoint('ep_sealed', first));
  const rotated = await outbox.endpoints.rotateSecret('ep_sealed', second, 60_000);
  expect([rotated?.secret, rotated?.previousSecret]).toEqual([second, first]);
  const [listed] = await outbox.endpoints.listEndpoints();
  expect([listed?.secret, listed?.previousSecret]).toEqual([second, first]);
  const { endpoints } = await outbox.endpoints.enabledEndpoints();
  expect(endpoints.map((e) => e.secret)).toEqual([second]);
  // Both the prefix and the random part: neither appears, together or alone.
  return [first, second].flatMap((s) => [s, s.slice('whsec_'.length)]);
}

const codeOf = (p: Promise<unknown>) =>
  p.then(
    () => 'opened',
    (err) => (err as { code?: string }).code,
  );

describe('secrets at rest in SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-secrets-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stores no plaintext secret in the file, and opens only with its key', async () => {
    const path = join(dir, 'racewire.db');
    const db = openDatabase(path);
    const plaintexts = await storeTwoSecrets(createSqliteOutbox(db, { secrets: sealedSecrets(K1) }));
    const row = db.prepare('SELECT secret, previous_secret FROM webhook_endpoints').get() as {
      secret: string;
      previous_secret: string;
    };
    expect([row.secret.startsWith('rwsec1.'), row.previous_secret.startsWith('rwsec1.')]).toEqual([
      true,
      true,
    ]);
    db.close();
    // The database file and whatever WAL it left: no secret, in any form the outbox was given.
    const bytes = readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString('latin1'));
    for (const text of plaintexts) for (const b of bytes) expect(b.includes(text)).toBe(false);

    const again = openDatabase(path);
    await expect(
      codeOf(createSqliteOutbox(again, { secrets: sealedSecrets(K2) }).endpoints.listEndpoints()),
    ).resolves.toBe('RW_SECRETS_KEY_WRONG');
    await expect(codeOf(createSqliteOutbox(again).endpoints.endpoint('ep_sealed'))).resolves.toBe(
      'RW_SECRETS_KEY_MISSING',
    );
    // At start, the same refusal stops the start; with the right key it passes.
    await expect(
      codeOf(requireSecretsOpen(createSqliteOutbox(again, { secrets: sealedSecrets(K2) }), () => {})),
    ).resolves.toBe('RW_SECRETS_KEY_WRONG');
    await expect(
      requireSecretsOpen(createSqliteOutbox(again, { secrets: sealedSecrets(K1) }), () => {}),
    ).resolves.toBeUndefined();
    again.close();
  });
});

describeWithRedis('secrets at rest in Redis', (url) => {
  const backends = redisBackends(url);
  afterAll(() => backends.cleanup());

  it('stores no plaintext secret under the prefix, and opens only with its key', async () => {
    const { redis } = backends;
    const prefix = backends.nextPrefix();
    const plaintexts = await storeTwoSecrets(
      createRedisOutbox({ redis, prefix, secrets: sealedSecrets(K1) }),
    );
    const stored: string[] = [];
    for (const key of await redis.keys(`${prefix}*`)) {
      const type = await redis.type(key);
      if (type === 'hash') stored.push(JSON.stringify(await redis.hgetall(key)));
      else if (type === 'string') stored.push((await redis.get(key)) ?? '');
      else if (type === 'zset') stored.push(JSON.stringify(await redis.zrange(key, 0, -1)));
      else if (type === 'set') stored.push(JSON.stringify(await redis.smembers(key)));
      else stored.push(`unchecked ${type} ${key}`);
    }
    expect(stored.filter((s) => s.startsWith('unchecked'))).toEqual([]);
    expect(stored.some((s) => s.includes('rwsec1.'))).toBe(true);
    for (const text of plaintexts) for (const s of stored) expect(s.includes(text)).toBe(false);

    const other = createRedisOutbox({ redis, prefix, secrets: sealedSecrets(K2) });
    await expect(codeOf(other.endpoints.listEndpoints())).resolves.toBe('RW_SECRETS_KEY_WRONG');
    await expect(codeOf(createRedisOutbox({ redis, prefix }).endpoints.endpoint('ep_sealed'))).resolves.toBe(
      'RW_SECRETS_KEY_MISSING',
    );
  });
});

describe('SECRETS_KEY at start', () => {
  const dir = mkdtempSync(join(tmpdir(), 'racewire-secrets-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const start = (key: string) => {
    const config = loadConfig({
      STORE: 'sqlite',
      DATA_DIR: dir,
      LOG_LEVEL: 'silent',
      PORT: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      SECRETS_KEY: key,
    });
    const started = startRacewire({
      config,
      listen: false,
      clockFrom: (origin) => createManualClock(origin),
      wallClock: createManualClock(Date.parse('2026-11-26T10:00:00Z')),
    });
    return { config, started };
  };

  it('stops the start with another key (exit 2, a line naming the endpoint, never the key)', async () => {
    const first = await start(K1).started;
    const created = await first.app.inject({
      method: 'POST',
      url: '/v1/webhooks/endpoints',
      payload: { url: 'http://127.0.0.1:9/hook', eventTypes: ['*'] },
    });
    const { endpoint, secret } = created.json() as { endpoint: { id: string }; secret: string };
    // The export answers the plaintext secret to an admin, as before.
    const exported = await first.app.inject({ method: 'GET', url: '/v1/webhooks/endpoints:export' });
    expect(exported.json().endpoints.map((e: { secret: string }) => e.secret)).toEqual([secret]);
    await first.stop();

    const { config, started } = start(K2);
    const err = await started.catch((e) => e);
    const failure = describeStartupFailure(err, config);
    expect(failure).toEqual({
      exitCode: 2,
      lines: [
        `the secret of webhook endpoint ${endpoint.id} does not open with this SECRETS_KEY (another key, or altered). Fix: set SECRETS_KEY to the key it was stored with, or restore the endpoints from an export (docs/operations.md)`,
      ],
    });
    const again = await start(K1).started;
    await again.stop();
  }, 60_000);
});
