import type { Resource } from './en';
import { en } from './en';

export const de: Resource = en;
