// What the model check says of some bytes: 'accepted', or the message of its MODEL_LOAD_FAILED (any other
// error fails the test).
import { expect } from 'vitest';
import { readOnnxModel } from '../../src/model/index.js';

export function modelCheckVerdict(bytes: Uint8Array): string {
  try {
    readOnnxModel(bytes);
    return 'accepted';
  } catch (e) {
    expect((e as { code: string }).code).toBe('MODEL_LOAD_FAILED');
    return (e as Error).message;
  }
}
