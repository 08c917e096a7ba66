// Owns the rule for where webhooks may be sent: http(s) only, https in production, no credentials in the URL,
// and no host that resolves to a non-public address (loopback, private, link-local, CGNAT, multicast, ...).
// Checked at configuration and again at every delivery; the relay also pins the check into the connection's
// DNS lookup (guardedLookup) so a name cannot resolve to a public address for the check and a private one
// for the connect (DNS rebinding).
import dns from 'node:dns';
import net from 'node:net';
import type { Environment } from '../config/config';
import { AppError } from './errors';

export interface DeliverableOpts {
  environment: Environment;
  /** Only honoured for sandbox endpoints (development receivers on localhost); never for production. */
  allowPrivate: boolean;
}

const forbidden = new net.BlockList();
for (const [addr, prefix] of [
  ['0.0.0.0', 8], // "this network", includes the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, includes broadcast
] as const) {
  forbidden.addSubnet(addr, prefix, 'ipv4');
}
for (const [addr, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['::', 96], // deprecated IPv4-compatible
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const) {
  forbidden.addSubnet(addr, prefix, 'ipv6');
}

/** True for addresses a webhook must never be sent to. IPv4-mapped IPv6 is judged as the IPv4 address. */
export function isForbiddenAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return forbidden.check(address, 'ipv4');
  if (family !== 6) return true;
  // BlockList matches ::ffff:a.b.c.d against the IPv4 rules itself; NAT64 (64:ff9b::/96) embeds IPv4 too.
  const nat64 = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (nat64) {
    const hi = Number.parseInt(nat64[1], 16);
    const lo = Number.parseInt(nat64[2], 16);
    return isForbiddenAddress(`${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`);
  }
  return forbidden.check(address, 'ipv6');
}

const invalid = (detail: string): AppError => new AppError('webhook_url_invalid', detail, { param: 'url' });

const effectiveAllowPrivate = (opts: DeliverableOpts): boolean =>
  opts.allowPrivate && opts.environment === 'sandbox';

/** Throws webhook_url_invalid (param url) unless `url` may receive webhooks for this environment. */
export async function assertDeliverableUrl(url: string, opts: DeliverableOpts): Promise<void> {
  if (url.length > 2048) throw invalid('The URL is longer than 2048 characters.');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalid('The URL cannot be parsed.');
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    throw invalid('The URL must use https (or http in the sandbox).');
  if (u.protocol === 'http:' && opts.environment === 'production') {
    throw invalid('Production webhook URLs must use https.');
  }
  if (u.username || u.password) throw invalid('The URL must not contain credentials.');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (!host) throw invalid('The URL has no host.');
  let addresses: dns.LookupAddress[];
  try {
    addresses = await dns.promises.lookup(host, { all: true, verbatim: true });
  } catch {
    throw invalid('The URL host does not resolve.');
  }
  if (addresses.length === 0) throw invalid('The URL host does not resolve.');
  if (effectiveAllowPrivate(opts)) return;
  if (addresses.some((a) => isForbiddenAddress(a.address))) {
    throw invalid('The URL resolves to a private, loopback or otherwise non-public address.');
  }
}

/**
 * A `lookup` for http(s).request that refuses to connect to forbidden addresses, so the address checked is
 * the address connected to. (Literal IP hosts skip lookup; assertDeliverableUrl covers those.)
 */
export function guardedLookup(opts: DeliverableOpts): net.LookupFunction {
  const allowPrivate = effectiveAllowPrivate(opts);
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      const bad = !allowPrivate && addresses.some((a) => isForbiddenAddress(a.address));
      if (bad || addresses.length === 0) {
        const e: NodeJS.ErrnoException = new Error('webhook host resolves to a non-public address');
        e.code = 'EADDRNOTALLOWED';
        return callback(e, '', 0);
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}
