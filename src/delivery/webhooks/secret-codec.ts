/**
 * Webhook signing secrets at rest: what both endpoint stores (the SQLite table, the Redis hashes) write for a
 * secret and how they read it back, in this one place. With SECRETS_KEY a secret is stored sealed with
 * AES-256-GCM (`rwsec1.<iv>.<tag>.<ciphertext>`, base64url, a fresh 12-byte IV each time, the endpoint id
 * as additional data so a sealed secret copied to another endpoint does not open); without it, in plain
 * text. A value that does not open (another key, altered bytes, or sealed while no key is set) is a
 * SecretsKeyError naming the endpoint, never garbage and never the value. A plain value read while a key is
 * set (stored before the key was) is taken as it is, and sealed when next written (a rotation).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { EndpointWithSecrets } from './model.js';
import type { WebhookEndpoints } from './ports.js';

const SEALED = 'rwsec1.';

export type SecretsKeyErrorCode = 'RW_SECRETS_KEY_WRONG' | 'RW_SECRETS_KEY_MISSING';

export class SecretsKeyError extends Error {
  constructor(
    readonly code: SecretsKeyErrorCode,
    readonly endpointId: string,
  ) {
    super(
      code === 'RW_SECRETS_KEY_MISSING'
        ? `the secret of webhook endpoint ${endpointId} is encrypted, and SECRETS_KEY is unset. Fix: set SECRETS_KEY to the key it was stored with`
        : `the secret of webhook endpoint ${endpointId} does not open with this SECRETS_KEY (another key, or altered). Fix: set SECRETS_KEY to the key it was stored with, or restore the endpoints from an export (docs/operations.md)`,
    );
    this.name = this.constructor.name;
  }
}

export interface SecretCodec {
  /** What is stored for `secret`, a secret of endpoint `endpointId`. */
  seal(endpointId: string, secret: string): string;
  /** The secret from what is stored; throws SecretsKeyError when it does not open. */
  open(endpointId: string, stored: string): string;
}

/** No SECRETS_KEY: secrets stored as they are. */
export const plainSecrets: SecretCodec = {
  seal: (_id, secret) => secret,
  open(endpointId, stored) {
    if (stored.startsWith(SEALED)) throw new SecretsKeyError('RW_SECRETS_KEY_MISSING', endpointId);
    return stored;
  },
};

/** SECRETS_KEY: 64 hex characters (32 bytes), validated by the configuration. */
export function sealedSecrets(keyHex: string): SecretCodec {
  const key = Buffer.from(keyHex, 'hex');
  if (key.length !== 32) throw new RangeError('SECRETS_KEY must be 32 bytes (64 hex characters)');
  return {
    seal(endpointId, secret) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(endpointId));
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return SEALED + [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
    },
    open(endpointId, stored) {
      if (!stored.startsWith(SEALED)) return stored;
      const [iv, tag, body] = stored
        .slice(SEALED.length)
        .split('.')
        .map((p) => Buffer.from(p, 'base64url'));
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv as Buffer, { authTagLength: 16 }).setAAD(
          Buffer.from(endpointId),
        );
        decipher.setAuthTag(tag as Buffer);
        return Buffer.concat([decipher.update(body as Buffer), decipher.final()]).toString('utf8');
      } catch {
        // The tag did not verify (or the value is malformed): the same answer, whichever.
        throw new SecretsKeyError('RW_SECRETS_KEY_WRONG', endpointId);
      }
    },
  };
}

/** The codec SECRETS_KEY asks for. */
export const secretCodec = (key: string | undefined): SecretCodec =>
  key === undefined ? plainSecrets : sealedSecrets(key);

/** An endpoint as read from a store, with its secrets opened. */
export const openSecrets = (codec: SecretCodec, e: EndpointWithSecrets): EndpointWithSecrets => ({
  ...e,
  secret: codec.open(e.id, e.secret),
  previousSecret: e.previousSecret === null ? null : codec.open(e.id, e.previousSecret),
});

/**
 * At start: every stored secret opens with this SECRETS_KEY, or the start stops with the SecretsKeyError
 * (a wrong key would otherwise fail each delivery, one by one). A store that does not answer now (Redis
 * away) is not a key problem: the first read that can will say.
 */
export async function requireSecretsOpen(
  outbox: { endpoints: Pick<WebhookEndpoints, 'listEndpoints'> },
  onUnchecked: (err: Error) => void,
): Promise<void> {
  try {
    await outbox.endpoints.listEndpoints();
  } catch (err) {
    if (err instanceof SecretsKeyError) throw err;
    onUnchecked(err as Error);
  }
}
