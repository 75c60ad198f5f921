/**
 * The v1 currency contract (SPEC.md "Currency precision"): the 17 supported codes and the
 * number of decimals each one's amounts carry. Amounts inside the service are integer counts
 * of the smallest unit (10^-decimals), as BigInt.
 */
export const CURRENCY_DECIMALS = {
  USD: 2,
  EUR: 2,
  GBP: 2,
  USDT: 2,
  USDC: 2,
  BTC: 8,
  uBTC: 2,
  ETH: 6,
  LTC: 8,
  DOGE: 8,
  BNB: 8,
  SOL: 8,
  XRP: 6,
  ADA: 6,
  TRX: 6,
  XLM: 7,
  ZEC: 8,
} as const;

export type CurrencyCode = keyof typeof CURRENCY_DECIMALS;

export const CURRENCY_CODES = Object.keys(CURRENCY_DECIMALS) as CurrencyCode[];

export const CURRENCY_CONTRACT_VERSION = 'v1';

export function isCurrencyCode(code: unknown): code is CurrencyCode {
  return typeof code === 'string' && Object.prototype.hasOwnProperty.call(CURRENCY_DECIMALS, code);
}

export function decimalsOf(code: CurrencyCode): number {
  return CURRENCY_DECIMALS[code];
}
