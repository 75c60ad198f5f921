/** Requests through the app in tests: an answer's shape, fresh idempotency keys, POST and GET. */
import type { TestApp } from './app.js';

export interface Res {
  statusCode: number;
  body: string;
  json(): any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

let counter = 0;
/** A fresh idempotency key. */
export const key = (label = 'k') => `${label}-${++counter}-${Math.random().toString(36).slice(2, 8)}`;

export const post = (t: TestApp, url: string, payload: Record<string, unknown>): Promise<Res> => t.app.inject({ method: 'POST', url, payload });
export const get = (t: TestApp, url: string): Promise<Res> => t.app.inject({ method: 'GET', url });
