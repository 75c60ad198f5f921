/**
 * Which casino addresses the service calls (no server-side request forgery through a profile).
 *
 * A callback base URL is `sandbox://demo-casino` or an absolute http(s) URL without user info,
 * query or fragment. In production it must be `https:` to a public host: a loopback, link-local,
 * private, unique-local, carrier-grade NAT, unspecified, multicast or reserved address is refused
 * in every spelling (the URL standard turns `0x7f000001`, `2130706433` and `0177.1` into
 * 127.0.0.1; an IPv4-mapped IPv6 address is judged as the IPv4 it maps), and so is `localhost`.
 * A host name is judged again when the wallet client connects: every address it resolves to
 * must pass (DNS rebinding). Outside production loopback and private addresses stay allowed
 * (local and LAN casinos); link-local (cloud metadata), unspecified, multicast and reserved
 * addresses never are.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';
import { SANDBOX_CALLBACK_BASE } from './operator-schema.js';

/** Ranges (ipaddr.js names) allowed outside production only; any range but these and `unicast` is never called. */
const LOCAL = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

/** Is a literal IP address one the service may call? Public unicast always; local ranges outside production. */
export function isAllowedAddress(address: string, production: boolean): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' || (!production && LOCAL.has(range));
}

const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.';

/** Checks a callback base URL at the admin PUT; VALIDATION_ERROR naming the rule it breaks. */
export function checkCallbackBase(url: string, production: boolean): void {
  if (url === SANDBOX_CALLBACK_BASE) return;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new AppError('VALIDATION_ERROR', 'callbackBaseUrl must be an absolute URL');
  }
  const schemes = production ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(parsed.protocol)) {
    throw new AppError(
      'VALIDATION_ERROR',
      production ? 'callbackBaseUrl must be https:// (or sandbox://demo-casino) in production' : 'callbackBaseUrl must be http(s):// or sandbox://demo-casino',
    );
  }
  if (parsed.username || parsed.password || parsed.search || parsed.hash) {
    throw new AppError('VALIDATION_ERROR', 'callbackBaseUrl must not carry user info, a query or a fragment');
  }
  const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (isIP(host)) {
    if (!isAllowedAddress(host, production)) throw new AppError('VALIDATION_ERROR', 'callbackBaseUrl points at an internal address; use the casino’s public host');
  } else if (production && isLocalName(host)) {
    throw new AppError('VALIDATION_ERROR', 'callbackBaseUrl points at an internal address; use the casino’s public host');
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A `lookup` for the wallet client's sockets that refuses a host name resolving to an address
 * the mode does not allow (DNS rebinding: the name passed the PUT, its address changed since).
 */
export function guardedLookup(production: boolean, resolve: Lookup = dnsLookup as unknown as Lookup): Lookup {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, options.all ? [] : '', undefined);
      const list = (Array.isArray(addresses) ? addresses : [{ address: addresses, family: isIP(addresses) }]) as LookupAddress[];
      const refused = list.find((a) => !isAllowedAddress(a.address, production));
      if (list.length === 0 || refused) {
        const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to an address the service does not call`);
        e.code = 'EADDRNOTALLOWED';
        return callback(e, options.all ? [] : '', undefined);
      }
      if (options.all) return callback(null, list);
      const first = list[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

/** Is the host of a URL we are about to call allowed (IP literals; names are checked at connect)? */
export function callableUrl(url: string, production: boolean): boolean {
  const memo = production ? callableInProduction : callableOutside;
  const known = memo.get(url);
  if (known !== undefined) return known;
  const answer = judgeUrl(url, production);
  if (memo.size >= 1_000) memo.clear(); // a few URLs per operator profile; a bound all the same
  memo.set(url, answer);
  return answer;
}

/** The answers of callableUrl by URL (the same text always gets the same answer): a wallet call does not parse its URL again. */
const callableInProduction = new Map<string, boolean>();
const callableOutside = new Map<string, boolean>();

function judgeUrl(url: string, production: boolean): boolean {
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (isIP(host)) return isAllowedAddress(host, production);
  return !(production && isLocalName(host));
}
