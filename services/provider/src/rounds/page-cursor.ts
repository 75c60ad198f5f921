/**
 * Keyset cursors of the paged reports (the reconciliation rows, the GGR report, a player's rounds):
 * the last row's sort key as a JSON array of strings, base64url. Opaque to callers: a cursor is only
 * ever one a route answered; anything else is a VALIDATION_ERROR.
 */
import { AppError } from '../errors.js';

export const encodeCursor = (v: string[]): string => Buffer.from(JSON.stringify(v)).toString('base64url');

export function decodeCursor(cursor: string, length: number): string[] {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (Array.isArray(v) && v.length === length && v.every((x) => typeof x === 'string')) return v as string[];
  } catch {
    // falls through
  }
  throw new AppError('VALIDATION_ERROR', 'cursor is not one this route answered');
}
