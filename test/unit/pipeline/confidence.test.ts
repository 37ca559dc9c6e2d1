import { expect, test } from 'vitest';
import { InvalidInputError } from '../../../src/errors/index.js';
import { confidenceThreshold, validateConfidence } from '../../../src/pipeline/index.js';

test.each([0, 50, 100, 33.3, 1e-9])('accepts %s', (value) => {
  expect(validateConfidence(value)).toBe(value);
});

test.each([Number.NaN, Infinity, -Infinity, -1, 100.5, '50', null, undefined, {}])(
  'refuses %s with CONFIDENCE_INVALID, never clamping',
  (value) => {
    let error: unknown;
    try {
      validateConfidence(value);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as InvalidInputError).code).toBe('CONFIDENCE_INVALID');
  },
);

test('the threshold is confidence / 100 in float32, as the reference compares it', () => {
  expect(confidenceThreshold(50)).toBe(0.5);
  expect(confidenceThreshold(33)).toBe(Math.fround(0.33));
  expect(confidenceThreshold(33)).not.toBe(0.33);
});
