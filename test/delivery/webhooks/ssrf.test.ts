import { afterEach, describe, expect, it } from 'vitest';
import { createHttpSender } from '../../../src/delivery/webhooks/dispatch/sender.js';
import {
  addressRange,
  checkWebhookUrl,
  createGuardedLookup,
  isPublicAddress,
  type NetworkPolicy,
  type Resolver,
} from '../../../src/delivery/webhooks/dispatch/ssrf.js';
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
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '1.1.1.1', '2a00:1450:4001::1']) {
      expect([a, isPublicAddress(a)]).toEqual([a, true]);
    }
  });

  // The IANA IPv4 and IPv6 Special-Purpose Address Registries, block by block: the first and last address
  // of each (and one inside where the block holds a more specific one), plus multicast and every IPv6 form
  // that embeds an IPv4 address.
  const specialPurpose: Array<[address: string, range: string]> = [
    ['0.0.0.0', 'this-network'],
    ['0.255.255.255', 'this-network'],
    ['10.0.0.0', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.0', 'shared-address-space'],
    ['100.127.255.255', 'shared-address-space'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.255', 'loopback'],
    ['169.254.0.0', 'link-local'],
    ['169.254.169.254', 'link-local'],
    ['172.16.0.0', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.0', 'ietf-protocol-assignments'],
    ['192.0.0.9', 'ietf-protocol-assignments'],
    ['192.0.0.170', 'ietf-protocol-assignments'],
    ['192.0.2.0', 'documentation'],
    ['192.0.2.255', 'documentation'],
    ['192.31.196.1', 'as112'],
    ['192.52.193.1', 'amt'],
    ['192.88.99.1', 'deprecated-6to4-relay'],
    ['192.168.0.0', 'private'],
    ['192.168.255.255', 'private'],
    ['192.175.48.1', 'as112-direct-delegation'],
    ['198.18.0.0', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.7', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.255', 'multicast'],
    ['240.0.0.0', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'limited-broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::169.254.169.254', 'ipv4-compatible'],
    ['::10.0.0.1', 'ipv4-compatible'],
    ['::7f00:1', 'ipv4-compatible'],
    ['::8.8.8.8', 'ipv4-compatible'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::ffff:7f00:1', 'ipv4-mapped'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['::ffff:0:10.0.0.1', 'ipv4-translated'],
    ['64:ff9b::a00:1', 'nat64'],
    ['64:ff9b::808:808', 'nat64'],
    ['64:ff9b:1::1', 'nat64-local'],
    ['100::1', 'discard-only'],
    ['100:0:0:1::1', 'dummy-prefix'],
    ['2001:1::1', 'ietf-protocol-assignments'],
    ['2001:2::1', 'ietf-protocol-assignments'],
    ['2001:3::1', 'ietf-protocol-assignments'],
    ['2001:4:112::1', 'ietf-protocol-assignments'],
    ['2001:20::1', 'ietf-protocol-assignments'],
    ['2001:1ff:ffff::1', 'ietf-protocol-assignments'],
    ['2001::1', 'teredo'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:db8::1', 'documentation'],
    ['2002:a00:1::', '6to4'],
    ['2002:808:808::1', '6to4'],
    ['2620:4f:8000::1', 'as112'],
    ['3fff::1', 'documentation'],
    ['5f00::1', 'segment-routing'],
    ['fc00::1', 'unique-local'],
    ['fd12::1', 'unique-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['fec0::1', 'site-local'],
    ['ff02::1', 'multicast'],
  ];

  it.each(specialPurpose)('refuses %s (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it('refuses IPv4-compatible IPv6 URLs at registration and at connect time', async () => {
    for (const host of ['::127.0.0.1', '::169.254.169.254', '::10.0.0.1']) {
      await expect(checkWebhookUrl(`http://[${host}]/hook`, strict, resolveTo())).rejects.toMatchObject({
        code: 'RW_WEBHOOK_URL_FORBIDDEN',
      });
      const lookup = createGuardedLookup(strict, resolveTo(host));
      const error = await new Promise<Error | null>((resolve) =>
        lookup('sneaky.example.com', { family: 0 }, (err) => resolve(err)),
      );
      expect(error).toMatchObject({ code: 'RW_WEBHOOK_URL_FORBIDDEN' });
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
      message:
        'hooks.example.com resolves to 10.0.0.1 (private), which is not a public address; an operator can allow private and loopback addresses with WEBHOOK_ALLOW_PRIVATE=true',
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
