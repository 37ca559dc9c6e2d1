// Reading a package's JSON files with errors that say which file and what is wrong.
import { ModelPackageError } from '../errors/index.js';

export function parseJsonFile(name: string, bytes: Uint8Array | string): Record<string, unknown> {
  const text = typeof bytes === 'string' ? bytes : new TextDecoder().decode(bytes);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new ModelPackageError('MODEL_JSON_MALFORMED', `${name} is not valid JSON: ${(cause as Error).message}`, { cause });
  }
  return objectField(name, name, value);
}

export function objectField(file: string, path: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(file, `${path} must be an object`);
  }
  return value as Record<string, unknown>;
}

/** A number, also when written as a string (the platform writes sizes as "560"). */
export function numberField(file: string, path: string, value: unknown): number {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw invalid(file, `${path} must be a number, got ${JSON.stringify(value)}`);
  return n;
}

export function positiveIntegerField(file: string, path: string, value: unknown): number {
  const n = numberField(file, path, value);
  if (!Number.isInteger(n) || n < 1) throw invalid(file, `${path} must be a positive integer, got ${JSON.stringify(value)}`);
  return n;
}

/**
 * The largest network input side a package may ask for: far above what the platform trains (≤ 2048), and
 * small enough that the input tensor can be allocated (8192² × 3 floats is 805 MB).
 */
export const MAX_INPUT_SIDE = 8192;

/** A network input side: a positive integer up to MAX_INPUT_SIDE. */
export function inputSideField(file: string, path: string, value: unknown): number {
  const n = positiveIntegerField(file, path, value);
  if (n > MAX_INPUT_SIDE) throw invalid(file, `${path} must be at most ${MAX_INPUT_SIDE}, got ${JSON.stringify(value)}`);
  return n;
}

export function enabled(step: unknown): boolean {
  return typeof step === 'object' && step !== null && (step as { enabled?: unknown }).enabled === true;
}

export function invalid(file: string, reason: string): ModelPackageError {
  return new ModelPackageError('MODEL_CONFIG_INVALID', `${file}: ${reason}`);
}
