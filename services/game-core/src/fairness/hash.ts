/**
 * The two hashes of the fairness scheme (CONTRACT.md §9), from @noble/hashes (audited, no Node
 * built-ins), so the browser verifier computes with the very code the server runs:
 * HMAC-SHA256 keyed with the serverSeed text, and SHA-256 of the serverSeed text, both over
 * UTF-8 bytes.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export { bytesToHex };

/** HMAC-SHA256(key = UTF-8 of `key`, message = UTF-8 of `message`): 32 bytes. */
export function hmacSha256(key: string, message: string): Uint8Array {
  return hmac(sha256, utf8ToBytes(key), utf8ToBytes(message));
}

/** Lowercase hex SHA-256 of the UTF-8 bytes of `text`. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}
