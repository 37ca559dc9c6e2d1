// The confidence contract: 0–100, default 50, never clamped; compared in float32 as the reference does.
import { InvalidInputError } from '../errors/index.js';

export const DEFAULT_CONFIDENCE = 50;

/** Returns the confidence if it is a finite number in [0, 100]; throws `CONFIDENCE_INVALID` otherwise. */
export function validateConfidence(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw new InvalidInputError('CONFIDENCE_INVALID', `confidence must be a finite number in [0, 100], got ${describe(value)}`);
  }
  return value;
}

/** The probability threshold as the reference holds it: confidence / 100, rounded to float32. */
export function confidenceThreshold(confidence: number): number {
  return Math.fround(confidence / 100);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return String(value);
  return value === null ? 'null' : typeof value;
}
