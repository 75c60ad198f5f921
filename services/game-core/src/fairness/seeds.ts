/**
 * Seed pair material (CONTRACT.md §9): the serverSeed (64 lowercase hex characters from 32
 * random bytes), its commitment hash (SHA-256 of the seed TEXT), default client seeds and the
 * client seed rule (1 to 64 printable characters). Randomness comes in as an argument.
 */
import { bytesToHex, sha256Hex } from './hash.js';
import { z } from 'zod';

/** Lowercase hex SHA-256 of the serverSeed text's UTF-8 bytes (not of the decoded hex). */
export function hashServerSeed(serverSeed: string): string {
  return sha256Hex(serverSeed);
}

/** A new serverSeed from exactly 32 random bytes: their 64 lowercase hex characters. */
export function serverSeedFromBytes(bytes: Uint8Array): string {
  if (bytes.length !== 32) throw new RangeError('a server seed takes exactly 32 random bytes');
  return bytesToHex(bytes);
}

/**
 * A default client seed from random bytes: their lowercase hex (e.g. 8 bytes → 16 characters).
 * 1 to 32 bytes, so the result is a valid client seed.
 */
export function defaultClientSeed(bytes: Uint8Array): string {
  if (bytes.length < 1 || bytes.length > 32) throw new RangeError('a default client seed takes 1 to 32 random bytes');
  return bytesToHex(bytes);
}

/** No control, format, surrogate, private-use or unassigned characters. */
const PRINTABLE = /^[^\p{C}]+$/u;

/** 1 to 64 printable characters (counted as Unicode code points); spaces count as printable. */
export function isValidClientSeed(value: unknown): value is string {
  if (typeof value !== 'string' || !PRINTABLE.test(value)) return false;
  const length = [...value].length;
  return length >= 1 && length <= 64;
}

export const clientSeedSchema = z.string().refine(isValidClientSeed, {
  message: 'clientSeed must be 1 to 64 printable characters',
});

/** What POST /api/verify accepts as a server seed: any text of 1 to 256 characters. */
export function isValidVerifyServerSeed(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const length = [...value].length;
  return length >= 1 && length <= 256;
}

export const verifyServerSeedSchema = z.string().refine(isValidVerifyServerSeed, {
  message: 'serverSeed must be 1 to 256 characters',
});
