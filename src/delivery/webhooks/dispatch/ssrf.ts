/**
 * SSRF guard. A webhook URL may only reach public unicast addresses, checked when it is registered and
 * again at connection time (through the HTTP request's `lookup`), so a name that re-resolves to a private
 * address after registration (DNS rebinding) is refused too.
 */
import { promises as dns, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { WebhookError } from '../errors.js';
import { specialRange } from './special-ranges.js';

export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

export const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

export interface NetworkPolicy {
  allowPrivateNetworks: boolean;
  /** Exact host names, addresses or CIDRs that are allowed although not public. */
  allowedHosts: string[];
}

/**
 * The range of an address: a special-purpose block (special-ranges.ts) when it is in one, else ipaddr.js's
 * range (`unicast` for a public address). IPv6 forms embedding an IPv4 address are special blocks whatever
 * the IPv4 address, so `::ffff:8.8.8.8` is refused too: a webhook names a plain address or a host.
 */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const canonical = address.includes(':') ? canonicalIPv6(address) : address;
  return specialRange(canonical) ?? ipaddr.parse(canonical).range();
}

/**
 * An IPv6 address as the URL parser (and so the HTTP client) reads it: ipaddr.js reads `::127.0.0.1` as the
 * IPv4-mapped `::ffff:127.0.0.1`, WHATWG as the IPv4-compatible `::7f00:1` it is.
 */
function canonicalIPv6(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1);
  } catch {
    return address;
  }
}

/** Only public unicast is allowed: every special-purpose, private, multicast or embedded-IPv4 block is refused. */
export const isPublicAddress = (address: string): boolean => addressRange(address) === 'unicast';

function inAllowList(hostOrAddress: string, policy: NetworkPolicy): boolean {
  for (const entry of policy.allowedHosts) {
    if (entry.toLowerCase() === hostOrAddress.toLowerCase()) return true;
    if (ipaddr.isValid(hostOrAddress)) {
      try {
        const addr = ipaddr.process(hostOrAddress);
        const [range, bits] = entry.includes('/')
          ? ipaddr.parseCIDR(entry)
          : ([ipaddr.process(entry), addr.kind() === 'ipv4' ? 32 : 128] as const);
        if (addr.kind() === range.kind() && addr.match(range, bits)) return true;
      } catch {
        // Not an address or CIDR entry: a host name, compared above.
      }
    }
  }
  return false;
}

export function isAllowedAddress(address: string, policy: NetworkPolicy): boolean {
  return policy.allowPrivateNetworks || isPublicAddress(address) || inAllowList(address, policy);
}

const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '');

/** Parses and checks a webhook URL at registration: http(s), no credentials, every resolved address allowed. */
export async function checkWebhookUrl(raw: string, policy: NetworkPolicy, resolve: Resolver): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookError('RW_WEBHOOK_INVALID_URL', `not a URL: ${raw.slice(0, 200)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookError('RW_WEBHOOK_INVALID_URL', 'the URL must use http or https');
  }
  if (url.username || url.password) {
    throw new WebhookError('RW_WEBHOOK_INVALID_URL', 'the URL must not carry credentials');
  }
  const host = hostOf(url);
  if (inAllowList(host, policy) || policy.allowPrivateNetworks) return url;
  let addresses: LookupAddress[];
  if (ipaddr.isValid(host)) addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
  else {
    try {
      addresses = await resolve(host);
    } catch {
      throw new WebhookError('RW_WEBHOOK_URL_UNRESOLVABLE', `the host ${host} does not resolve`);
    }
  }
  if (addresses.length === 0)
    throw new WebhookError('RW_WEBHOOK_URL_UNRESOLVABLE', `the host ${host} does not resolve`);
  for (const a of addresses) {
    if (!isAllowedAddress(a.address, policy)) {
      throw new WebhookError(
        'RW_WEBHOOK_URL_FORBIDDEN',
        `${host} resolves to ${a.address} (${addressRange(a.address)}), which is not a public address; an operator can allow private and loopback addresses with WEBHOOK_ALLOW_PRIVATE=true`,
      );
    }
  }
  return url;
}

export class ForbiddenAddressError extends Error {
  readonly code = 'RW_WEBHOOK_URL_FORBIDDEN';
  constructor(host: string, address: string) {
    super(`refused to connect: ${host} resolves to ${address} (${addressRange(address)})`);
    this.name = this.constructor.name;
  }
}

/** A `lookup` for node:http that resolves through `resolve` and refuses forbidden addresses at connect time. */
export function createGuardedLookup(policy: NetworkPolicy, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    const host = hostname.replace(/^\[|\]$/g, '');
    const hostAllowed = policy.allowPrivateNetworks || inAllowList(host, policy);
    const found = ipaddr.isValid(host)
      ? Promise.resolve([{ address: host, family: host.includes(':') ? 6 : 4 }])
      : resolve(host);
    found.then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? options.family : 0;
        const usable = addresses.filter((a) => wanted === 0 || a.family === wanted);
        const bad = hostAllowed ? undefined : usable.find((a) => !isAllowedAddress(a.address, policy));
        const first = usable[0];
        if (bad) return callback(new ForbiddenAddressError(host, bad.address), '', 0);
        if (!first) {
          const err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
          return callback(err, '', 0);
        }
        if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, usable);
        callback(null, first.address, first.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
  };
}
