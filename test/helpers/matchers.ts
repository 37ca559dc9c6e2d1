// vitest's asymmetric matchers, typed unknown instead of any, to sit inside the objects given to toEqual.
import { expect } from 'vitest';

export const anyString = (): unknown => expect.any(String);
export const stringMatching = (pattern: string | RegExp): unknown => expect.stringMatching(pattern);
export const stringContaining = (text: string): unknown => expect.stringContaining(text);
export const anyNumber = (): unknown => expect.any(Number);
