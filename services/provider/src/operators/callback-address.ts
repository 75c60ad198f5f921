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
 *
 * In every environment (issue 23 defect 5d): an IPv6 address carrying an IPv4 one — IPv4-mapped
 * `::ffff:a.b.c.d`, the deprecated IPv4-compatible `::a.b.c.d`, `::ffff:0:a.b.c.d` (SIIT) and
 * NAT64 `64:ff9b::/96` / `64:ff9b:1::/48` — is allowed only when that IPv4 is public unicast (a
 * local casino is plain `127.0.0.1` or `localhost`, never an IPv6 spelling of it), and the
 * cloud metadata and platform endpoints (METADATA_ADDRESSES, METADATA_NAMES) are refused.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { AppError } from '../errors.js';
import { SANDBOX_CALLBACK_BASE } from './operator-schema.js';

/** Ranges (ipaddr.js names) allowed outside production only; any range but these and `unicast` is never called. */
const LOCAL = new Set(['loopback', 'private', 'uniqueLocal', 'carrierGradeNat']);

/**
 * Cloud metadata and platform endpoints, refused in every environment: AWS (IMDS, ECS task
 * metadata, Time Sync, DNS; IPv6 fd00:ec2::/32 as a whole), GCP (IPv6 metadata), Azure (WireServer
 * and IMDS), Alibaba Cloud, Oracle Cloud. Most v4 ones are link-local (refused anyway); the others
 * are carrier-grade NAT, unique-local or even public unicast addresses that the range rules alone
 * would let through.
 */
export const METADATA_ADDRESSES = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.169.123',
  '169.254.169.253',
  '100.100.100.200',
  '168.63.129.16',
  '192.0.0.192',
  'fd20:ce::254',
];
const METADATA_CIDRS = [ipaddr.parseCIDR('fd00:ec2::/32'), ...METADATA_ADDRESSES.map((a) => ipaddr.parseCIDR(`${a}/${a.includes(':') ? 128 : 32}`))];
/** Host names of metadata services (they resolve to the addresses above; refused before any lookup). */
export const METADATA_NAMES = [
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.azure.com',
];

const NAT64 = [ipaddr.parseCIDR('64:ff9b::/96'), ipaddr.parseCIDR('64:ff9b:1::/48')];
const SIIT = ipaddr.parseCIDR('::ffff:0:0:0/96');

/** The IPv4 address an IPv6 one carries (mapped, compatible, SIIT, NAT64), or null. */
function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = v6.parts;
  const low = () => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(SIIT)) return low();
  if (NAT64.some((cidr) => v6.match(cidr))) return low();
  // IPv4-compatible ::a.b.c.d (RFC 4291, deprecated): the first 96 bits zero, but not :: or ::1.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return low();
  return null;
}

const isMetadata = (a: ipaddr.IPv4 | ipaddr.IPv6) => METADATA_CIDRS.some(([net, bits]) => net.kind() === a.kind() && a.match(net, bits));

/** Is a literal IP address one the service may call? Public unicast always; local ranges outside production. */
export function isAllowedAddress(address: string, production: boolean): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return false;
  }
  if (isMetadata(parsed)) return false;
  if (parsed.kind() === 'ipv6') {
    const v4 = embeddedIPv4(parsed as ipaddr.IPv6);
    // An IPv4 inside IPv6 is judged as that IPv4, and only public unicast passes, in every environment.
    if (v4) return !isMetadata(v4) && v4.range() === 'unicast';
  }
  const range = parsed.range();
  return range === 'unicast' || (!production && LOCAL.has(range));
}

const isLocalName = (host: string) => host === 'localhost' || host.endsWith('.localhost') || host === 'localhost.';
const isMetadataName = (host: string) => METADATA_NAMES.includes(host.replace(/\.$/, ''));

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
    if (!isAllowedAddress(host, production))
      throw new AppError('VALIDATION_ERROR', 'callbackBaseUrl points at an internal address; use the casino’s public host');
  } else if (isMetadataName(host) || (production && isLocalName(host))) {
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
  return !isMetadataName(host) && !(production && isLocalName(host));
}
