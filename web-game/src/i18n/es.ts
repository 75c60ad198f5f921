import type { Resource } from './en';
import { en } from './en';

export const es: Resource = en;
