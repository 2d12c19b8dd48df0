/**
 * Address blocks a webhook may never reach: the IANA IPv4 and IPv6 Special-Purpose Address Registries
 * (RFC 6890 and its updates), the multicast blocks, and every IPv6 form that embeds an IPv4 address
 * (IPv4-compatible `::/96`, IPv4-mapped, IPv4-translated, NAT64, 6to4, Teredo), which would let a
 * private IPv4 address through in IPv6 clothing. Checked on top of ipaddr.js's own ranges.
 */
import ipaddr from 'ipaddr.js';

export const SPECIAL_RANGES: ReadonlyArray<readonly [cidr: string, name: string]> = [
  // IPv4 (iana-ipv4-special-registry), plus multicast and limited broadcast.
  ['0.0.0.0/8', 'this-network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared-address-space'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'ietf-protocol-assignments'],
  ['192.0.2.0/24', 'documentation'],
  ['192.31.196.0/24', 'as112'],
  ['192.52.193.0/24', 'amt'],
  ['192.88.99.0/24', 'deprecated-6to4-relay'],
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'as112-direct-delegation'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'limited-broadcast'],
  // IPv6 (iana-ipv6-special-registry), plus multicast and the deprecated site-local block.
  ['::/128', 'unspecified'],
  ['::1/128', 'loopback'],
  ['::/96', 'ipv4-compatible'],
  ['::ffff:0:0/96', 'ipv4-mapped'],
  ['::ffff:0:0:0/96', 'ipv4-translated'],
  ['64:ff9b::/96', 'nat64'],
  ['64:ff9b:1::/48', 'nat64-local'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy-prefix'],
  ['2001::/23', 'ietf-protocol-assignments'],
  ['2001::/32', 'teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'as112'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment-routing'],
  ['fc00::/7', 'unique-local'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local'],
  ['ff00::/8', 'multicast'],
];

const parsed = SPECIAL_RANGES.map(([cidr, name]) => ({ range: ipaddr.parseCIDR(cidr), name }));

/** The most specific special block holding `address` (a valid IPv4 or IPv6 address), if any. */
export function specialRange(address: string): string | undefined {
  const addr = ipaddr.parse(address);
  let best: { name: string; bits: number } | undefined;
  for (const { range, name } of parsed) {
    const [net, bits] = range;
    if (addr.kind() === net.kind() && addr.match(range) && (!best || bits > best.bits)) best = { name, bits };
  }
  return best?.name;
}
