/**
 * Standard Webhooks signing (https://www.standardwebhooks.com) with the reference `standardwebhooks`
 * package. During a secret rotation every live secret signs, space-separated, so a receiver holding either
 * secret verifies.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function generateSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs `body` (the exact bytes sent) as message `id` at `timestampMs`, once per secret. */
export function signDelivery(
  secrets: string[],
  id: string,
  timestampMs: number,
  body: string,
): SignedHeaders {
  const at = new Date(Math.floor(timestampMs / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(timestampMs / 1000)),
    'webhook-signature': secrets.map((s) => new Webhook(s).sign(id, at, body)).join(' '),
  };
}
