import { afterEach, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../../src/delivery/webhooks/http-sender.js';
import {
  checkWebhookUrl,
  createGuardedLookup,
  isPublicAddress,
  type NetworkPolicy,
  type Resolver,
} from '../../../src/delivery/webhooks/ssrf.js';
import { startReceiver } from './helpers.js';

const strict: NetworkPolicy = { allowPrivateNetworks: false, allowedHosts: [] };
const resolveTo =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('SSRF guard', () => {
  const closers: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0)) await c();
  });

  it('classifies only public unicast addresses as public, IPv4 and IPv6', () => {
    const refused = [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '240.0.0.1',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd12::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:169.254.169.254',
      '64:ff9b::a00:1',
      '2002:a00:1::',
    ];
    for (const a of refused) expect([a, isPublicAddress(a)]).toEqual([a, false]);
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8']) {
      expect([a, isPublicAddress(a)]).toEqual([a, true]);
    }
  });

  it('refuses loopback, private and IPv4-mapped IPv6 URLs at registration', async () => {
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'https://10.0.0.5/x',
      'http://[::1]/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f00:1]/',
    ]) {
      await expect(checkWebhookUrl(url, strict, resolveTo('93.184.216.34'))).rejects.toMatchObject({
        code: 'RW_WEBHOOK_URL_FORBIDDEN',
      });
    }
  });

  it('refuses a host name that resolves to any private address at registration', async () => {
    await expect(
      checkWebhookUrl('https://hooks.example.com/x', strict, resolveTo('93.184.216.34', '10.0.0.1')),
    ).rejects.toMatchObject({
      code: 'RW_WEBHOOK_URL_FORBIDDEN',
      message: 'hooks.example.com resolves to 10.0.0.1 (private), which is not a public address',
    });
  });

  it('accepts public hosts and refuses non-http schemes and credentials', async () => {
    await expect(
      checkWebhookUrl('https://hooks.example.com/x', strict, resolveTo('93.184.216.34')),
    ).resolves.toBeInstanceOf(URL);
    await expect(
      checkWebhookUrl('ftp://example.com/', strict, resolveTo('93.184.216.34')),
    ).rejects.toMatchObject({ code: 'RW_WEBHOOK_INVALID_URL' });
    await expect(
      checkWebhookUrl('https://u:p@example.com/', strict, resolveTo('93.184.216.34')),
    ).rejects.toMatchObject({ code: 'RW_WEBHOOK_INVALID_URL' });
    await expect(
      checkWebhookUrl('https://nowhere.invalid/', strict, async () => {
        throw new Error('ENOTFOUND');
      }),
    ).rejects.toMatchObject({ code: 'RW_WEBHOOK_URL_UNRESOLVABLE' });
  });

  it('lets the allow-list admit a CIDR or a host name', async () => {
    const policy = { allowPrivateNetworks: false, allowedHosts: ['127.0.0.1/32', 'internal.test'] };
    await expect(checkWebhookUrl('http://127.0.0.1:9/', policy, resolveTo())).resolves.toBeInstanceOf(URL);
    await expect(
      checkWebhookUrl('http://internal.test/', policy, resolveTo('10.0.0.1')),
    ).resolves.toBeInstanceOf(URL);
    await expect(checkWebhookUrl('http://127.0.0.2/', policy, resolveTo())).rejects.toMatchObject({
      code: 'RW_WEBHOOK_URL_FORBIDDEN',
    });
  });

  it('refuses at connect time a host name that now resolves to a private address (DNS rebinding)', async () => {
    const receiver = await startReceiver();
    closers.push(receiver.close);
    const port = new URL(receiver.url).port;
    // Registration saw a public address; at connect time the name resolves to loopback.
    const sender = createHttpSender({
      lookup: createGuardedLookup(strict, resolveTo('127.0.0.1')),
      timeoutMs: 2000,
    });
    closers.push(sender.close);
    const result = await sender({ url: `http://rebind.example.com:${port}/hook`, headers: {}, body: '{}' });
    expect(result.status).toBeUndefined();
    expect(result.error).toBe('refused to connect: rebind.example.com resolves to 127.0.0.1 (loopback)');
    expect(receiver.received).toHaveLength(0);
  });

  it('connects through the guarded lookup when the address is allowed', async () => {
    const receiver = await startReceiver(() => ({ status: 204 }));
    closers.push(receiver.close);
    const port = new URL(receiver.url).port;
    const policy = { allowPrivateNetworks: false, allowedHosts: ['127.0.0.1'] };
    const sender = createHttpSender({
      lookup: createGuardedLookup(policy, resolveTo('127.0.0.1')),
      timeoutMs: 2000,
    });
    closers.push(sender.close);
    const result = await sender({ url: `http://receiver.test:${port}/hook`, headers: {}, body: '{"a":1}' });
    expect(result.status).toBe(204);
    expect(receiver.received.map((r) => [r.headers.host, r.body])).toEqual([
      [`receiver.test:${port}`, '{"a":1}'],
    ]);
  });

  it('refuses an address literal at send time too (node does not look those up)', async () => {
    const sender = createHttpSender({
      lookup: createGuardedLookup(strict, resolveTo()),
      timeoutMs: 2000,
      checkAddressLiteral: (a) => (isPublicAddress(a) ? undefined : `refused ${a}`),
    });
    closers.push(sender.close);
    expect(await sender({ url: 'http://[::ffff:127.0.0.1]:9/x', headers: {}, body: '{}' })).toEqual({
      headers: {},
      body: '',
      error: 'refused ::ffff:7f00:1',
    });
  });
});
