/**
 * Operator secrets and launch tokens at rest: AES-256-GCM with a key from SECRET_KEY (32 bytes
 * written as 64 hex characters). Outside production a missing key is generated once and
 * kept in DATA_DIR so that a restart can still read what it wrote.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pooledRandomBytes } from './random.js';

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
}

export function parseKey(text: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(text)) throw new Error('SECRET_KEY must be 32 bytes written as 64 hex characters');
  return Buffer.from(text, 'hex');
}

/**
 * How many of the latest sealed values `open` answers without decrypting: the money path seals a
 * callback's body to record it and opens it a moment later to send it (issue 14: one AES-GCM
 * decryption per callback saved). A sealed text has one plaintext (its IV is random), so the
 * memo can only answer what decryption would; anything else, or a changed text, is decrypted
 * and authenticated as before.
 */
const RECENT = 512;

export function createSecretBox(key: Buffer): SecretBox {
  const recent = new Map<string, string>();
  return {
    seal(plain) {
      const iv = pooledRandomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      const sealed = ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
      recent.set(sealed, plain);
      if (recent.size > RECENT) recent.delete(recent.keys().next().value!);
      return sealed;
    },
    open(sealed) {
      const known = recent.get(sealed);
      if (known !== undefined) return known;
      const [v, iv, tag, body] = sealed.split(':');
      if (v !== 'v1' || !iv || !tag || body === undefined) throw new Error('sealed value has an unknown format');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/** The key of this deployment: SECRET_KEY, or (outside production) one generated into DATA_DIR. */
export function resolveSecretKey(opts: { secretKey: string | undefined; production: boolean; dataDir: string; persist: boolean }): Buffer {
  if (opts.secretKey) return parseKey(opts.secretKey);
  if (opts.production) throw new Error('SECRET_KEY is required in production: 32 bytes written as 64 hex characters');
  if (!opts.persist) return randomBytes(32);
  const file = path.resolve(opts.dataDir, 'secret.key');
  if (existsSync(file)) return parseKey(readFileSync(file, 'utf8').trim());
  mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('hex'), { mode: 0o600 });
  return key;
}
