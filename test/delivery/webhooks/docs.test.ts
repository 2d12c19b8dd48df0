import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { WEBHOOK_ERRORS } from '../../../src/delivery/webhooks/errors.js';

const doc = readFileSync(new URL('../../../docs/webhooks.md', import.meta.url), 'utf8');

it('documents every webhook error code with its HTTP status', () => {
  for (const [code, { status }] of Object.entries(WEBHOOK_ERRORS)) {
    expect(doc).toContain(`| \`${code}\` | ${status} |`);
  }
});

it('documents the signed example so that it verifies', async () => {
  const { Webhook } = await import('standardwebhooks');
  const body = doc.match(/^(\{"id":"R7fQ2:12@[^"]+".*\})$/m)?.[1] ?? '';
  const header = (name: string) => doc.match(new RegExp(`^${name}: (.*)$`, 'm'))?.[1] ?? '';
  const wh = new Webhook('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  const at = new Date(Number(header('webhook-timestamp')) * 1000);
  expect(wh.sign(header('webhook-id'), at, body)).toBe(header('webhook-signature'));
});
