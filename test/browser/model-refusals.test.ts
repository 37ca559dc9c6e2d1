// A model edgeseg refuses, in the browser: the refusal the worker's package reader makes crosses to the page
// with its class, code and message as written (the message says what the model is and what to write), as the
// command line and Node give it.
import { expect, test } from 'vitest';
import { createSegmenter, ModelPackageError } from '../../src/index.js';
import { fetchPackageFiles, parseModelPackage } from '../../src/model/index.js';

/** The refusal the package reader makes of the package at `url`, on this page. */
async function readerRefusal(url: string): Promise<ModelPackageError> {
  try {
    parseModelPackage(await fetchPackageFiles(url));
  } catch (error) {
    if (error instanceof ModelPackageError) return error;
    throw error;
  }
  throw new Error(`${url} was accepted`);
}

// forms/clip ends in a Clip: probabilities the graph cannot tell as such, which post_processing decides.
test('a model the reader refuses: the worker’s refusal reaches the page as the reader wrote it', async () => {
  const code = 'MODEL_OUTPUT_SHAPE';
  const url = '/test/fixtures/models/forms/clip/';
  const expected = await readerRefusal(url);
  expect(expected.code).toBe(code);
  expect(expected.message).toMatch(
    /ends in a Clip, which may give probabilities or scores: say which in inference_config\.json with "post_processing"/,
  );
  const error = await createSegmenter({ model: url, backends: ['wasm'], cache: false }).catch((e: unknown) => e);
  // No backend could load it, and the reason is the package's, whole.
  expect(error).toMatchObject({ code: 'NO_BACKEND' });
  expect((error as Error).message).toContain(`[${code}] ${expected.message}`);
  const cause = (error as Error).cause;
  expect(cause).toBeInstanceOf(ModelPackageError);
  expect(cause).toMatchObject({ name: 'ModelPackageError', code, message: expected.message });
});
