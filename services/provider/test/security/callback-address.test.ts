/**
 * No server-side request forgery through an operator profile (issue 9, defect 5;
 * wallet/callback-address.ts): internal addresses are refused at the admin PUT in every spelling
 * (in production all local ranges; outside production link-local, unspecified, multicast and
 * reserved ones), and a host name that resolves inside is refused when the wallet client
 * connects (DNS rebinding).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkCallbackBase, guardedLookup, isAllowedAddress, type Lookup } from '../../src/operators/callback-address.js';
import { httpTransport } from '../../src/wallet/wallet-client.js';
import { adminHeaders, createTestApp, type TestApp } from '../helpers/app.js';

const INTERNAL = [
  'http://169.254.169.254/',
  'http://169.254.169.254/latest/meta-data',
  'https://169.254.169.254',
  'http://[::1]:6379/',
  'http://0x7f000001/',
  'http://2130706433/',
  'http://0177.0.0.1/',
  'http://127.1/',
  'https://localhost/',
  'https://api.localhost/',
  'http://[::ffff:127.0.0.1]/',
  'http://[::ffff:7f00:1]/',
  'http://[::ffff:169.254.169.254]/',
  'https://10.0.0.5/',
  'https://192.168.1.10/',
  'https://172.16.0.1/',
  'https://100.64.0.1/',
  'https://[fd00::1]/',
  'https://[fe80::1]/',
  'https://0.0.0.0/',
  'https://[::]/',
  'https://224.0.0.1/',
  'https://255.255.255.255/',
];

const profile = (callbackBaseUrl: string) => ({
  currency: 'USD',
  callbackBaseUrl,
  sharedSecret: 'secret-0123456789abcdef',
  minBet: 0.1,
  stakeStep: 0.01,
  maxPayout: 100,
});

describe('the address rules (callback-address.ts)', () => {
  it('refuses every internal spelling in production and accepts public hosts', () => {
    for (const url of INTERNAL) expect(() => checkCallbackBase(url, true), url).toThrow(/internal address|https/);
    for (const url of [
      'https://casino.example',
      'https://wallet.casino.example/api/v2',
      'https://93.184.216.34',
      'https://[2606:2800:220:1:248:1893:25c8:1946]',
    ]) {
      expect(() => checkCallbackBase(url, true), url).not.toThrow();
    }
    expect(() => checkCallbackBase('http://casino.example', true)).toThrow(/https/);
    expect(() => checkCallbackBase('https://user:pw@casino.example', true)).toThrow(/user info/);
    expect(() => checkCallbackBase('sandbox://demo-casino', true)).not.toThrow();
  });

  it('outside production keeps loopback and private addresses (local casinos) but never link-local, unspecified or multicast', () => {
    for (const url of [
      'http://127.0.0.1:4000',
      'http://[::1]:4000',
      'http://0x7f000001:4000',
      'http://localhost:4000',
      'http://10.1.2.3',
      'http://192.168.0.2:8080',
    ]) {
      expect(() => checkCallbackBase(url, false), url).not.toThrow();
    }
    for (const url of ['http://169.254.169.254/', 'http://[fe80::1]/', 'http://0.0.0.0/', 'http://[::ffff:169.254.169.254]/', 'http://224.0.0.1/']) {
      expect(() => checkCallbackBase(url, false), url).toThrow(/internal address/);
    }
  });

  it('judges an IPv4-mapped IPv6 address as the IPv4 address it maps', () => {
    expect(isAllowedAddress('::ffff:8.8.8.8', true)).toBe(true);
    expect(isAllowedAddress('::ffff:10.0.0.1', true)).toBe(false);
  });
});

describe('IPv4 inside IPv6 and cloud metadata, in every environment (issue 23 defect 5d)', () => {
  /** IPv6 spellings of a loopback or private IPv4: a test casino is plain http://127.0.0.1 or localhost, never these. */
  const EMBEDDED = [
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:192.168.1.1',
    '::10.0.0.1',
    '64:ff9b::127.0.0.1',
    '64:ff9b::10.0.0.1',
    '64:ff9b::192.168.0.1',
    '64:ff9b:1::a00:1',
    '::ffff:0:127.0.0.1',
  ];
  const METADATA = [
    '169.254.169.254',
    'fd00:ec2::254',
    'fd00:ec2::253',
    '100.100.100.200',
    '168.63.129.16',
    '169.254.170.2',
    'fd20:ce::254',
    '::ffff:169.254.169.254',
    '::ffff:100.100.100.200',
    '::ffff:168.63.129.16',
  ];
  const url = (a: string) => (a.includes(':') ? `http://[${a}]:4000/` : `http://${a}/`);

  it('refuses them as addresses and as callback bases, in production and outside it', () => {
    for (const production of [true, false]) {
      for (const a of [...EMBEDDED, ...METADATA]) {
        expect(isAllowedAddress(a, production), `${a} production=${production}`).toBe(false);
        expect(() => checkCallbackBase(url(a), production), `${a} production=${production}`).toThrow(
          production ? /internal address|https/ : /internal address/,
        );
        expect(() => checkCallbackBase(url(a).replace('http:', 'https:'), production), `${a} https production=${production}`).toThrow(/internal address/);
      }
    }
  });

  it('refuses the metadata host names in every environment', () => {
    for (const production of [true, false]) {
      for (const host of ['metadata.google.internal', 'metadata.goog', 'METADATA.google.internal.', 'instance-data.ec2.internal', 'metadata.tencentyun.com']) {
        expect(() => checkCallbackBase(`https://${host}/`, production), `${host} production=${production}`).toThrow(/internal address/);
      }
    }
  });

  it('still allows local casinos outside production and public IPv4 mapped into IPv6 in production', () => {
    for (const u of ['http://127.0.0.1:4000', 'http://localhost:4000', 'http://[::1]:4000', 'http://10.1.2.3', 'http://100.64.0.1'])
      expect(() => checkCallbackBase(u, false), u).not.toThrow();
    expect(isAllowedAddress('::ffff:8.8.8.8', true)).toBe(true);
    expect(() => checkCallbackBase('https://[::ffff:93.184.216.34]/', true)).not.toThrow();
  });

  it('the guarded lookup refuses a name resolving to a metadata or embedded address outside production too', async () => {
    for (const address of ['fd00:ec2::254', '100.100.100.200', '::ffff:127.0.0.1', '64:ff9b::a00:1']) {
      const resolver: Lookup = (_h, _o, cb) => cb(null, [{ address, family: address.includes(':') ? 6 : 4 }]);
      const err = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
        guardedLookup(false, resolver)('casino.example', { all: true }, (e) => resolve(e)),
      );
      expect(err?.code, address).toBe('EADDRNOTALLOWED');
    }
  });
});

describe('the admin PUT', () => {
  let dev: TestApp;
  let prod: TestApp;
  beforeAll(async () => {
    dev = await createTestApp();
    prod = await createTestApp({ databaseUrl: dev.config.databaseUrl, env: { NODE_ENV: 'production' } });
  });
  afterAll(async () => {
    await prod?.close();
    await dev?.close();
  });

  it('refuses internal callback bases with VALIDATION_ERROR and stores nothing', async () => {
    for (const [app, urls] of [
      [prod, INTERNAL],
      [
        dev,
        [
          'http://169.254.169.254/',
          'https://169.254.169.254',
          'http://[fe80::1]:80/',
          'http://[::127.0.0.1]:4000/',
          'http://[::ffff:127.0.0.1]/',
          'http://[fd00:ec2::254]/',
          'http://100.100.100.200/',
          'http://[64:ff9b::10.0.0.1]/',
        ],
      ],
    ] as const) {
      for (const url of urls) {
        const res = await app.app.inject({ method: 'PUT', url: '/api/admin/operators/op-ssrf', headers: adminHeaders, payload: profile(url) });
        expect(res.statusCode, url).toBe(400);
        expect(res.json().code).toBe('VALIDATION_ERROR');
      }
    }
    expect(await dev.services.db('operators').where({ operator_id: 'op-ssrf' }).first()).toBeUndefined();
    expect(
      (await prod.app.inject({ method: 'PUT', url: '/api/admin/operators/op-ssrf', headers: adminHeaders, payload: profile('https://casino.example') }))
        .statusCode,
    ).toBe(201);
  });
});

describe('connecting (DNS rebinding)', () => {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  let port = 0;
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  /** A resolver that says every name is 127.0.0.1 (a casino name rebound to loopback). */
  const rebound: Lookup = (_hostname, options, callback) =>
    options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
  const request = { operatorId: 'op', path: '/wallet/balance' as const, headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2000 };

  it('in production refuses to connect to a name that now resolves to loopback, before any byte reaches it', async () => {
    const transport = httpTransport({ production: true, lookup: rebound });
    await expect(transport.send({ ...request, url: `http://casino.example:${port}/wallet/balance` })).rejects.toMatchObject({ kind: 'network' });
    await expect(transport.send({ ...request, url: `http://127.0.0.1:${port}/wallet/balance` })).rejects.toMatchObject({ kind: 'network' });
    expect(hits).toBe(0);
    await transport.close?.();
  });

  it('outside production connects to it (local casinos)', async () => {
    const transport = httpTransport({ production: false, lookup: rebound });
    const res = await transport.send({ ...request, url: `http://casino.example:${port}/wallet/balance` });
    expect(res.statusCode).toBe(200);
    expect(hits).toBe(1);
    await transport.close?.();
  });

  it('the guarded lookup refuses when any address of a name is internal', async () => {
    const mixed: Lookup = (_h, _o, cb) =>
      cb(null, [
        { address: '93.184.216.34', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ]);
    const err = await new Promise<NodeJS.ErrnoException | null>((resolve) => guardedLookup(true, mixed)('casino.example', { all: true }, (e) => resolve(e)));
    expect(err?.code).toBe('EADDRNOTALLOWED');
  });
});
