// JSON that a test reads back (a command's output, an HTTP answer, a data file), as the declared type
// of what the code under test writes: the test's assertions then check the values.
import { readFile } from 'node:fs/promises';

export function parseJson<T>(text: string | Uint8Array): T {
  return JSON.parse(typeof text === 'string' ? text : Buffer.from(text).toString('utf8')) as T;
}

export async function readJson<T>(answer: Response): Promise<T> {
  return (await answer.json()) as T;
}

export async function readJsonFile<T>(path: string): Promise<T> {
  return parseJson<T>(await readFile(path, 'utf8'));
}

/** The platform's error answer (ARCHITECTURE.md, errors): `code` repeats `type`; `hint` and `field` when known. */
export interface ErrorAnswer {
  error: { message: string; type: string; code: string; hint?: string; field?: string };
}
