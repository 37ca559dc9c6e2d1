import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { describe, expect, test } from 'vitest';
import { cutTrailingResize, onnxModel, readOnnxModel } from '../../../src/model/index.js';
import { VirtualUpsampledLogits } from '../../../src/pipeline/index.js';
import { TINY } from '../../helpers/paths.js';

const weightsOf = async (name: string) => new Uint8Array(await readFile(join(TINY(name), 'weights.onnx')));
const protoOf = async (name: string) => readOnnxModel(await weightsOf(name)).proto;
const outputShape = (session: ort.InferenceSession) => (session.outputMetadata[0] as { shape: readonly (number | string)[] }).shape;

describe('cutTrailingResize', () => {
  test('removes the final Resize of tiny-upsample and what computed its sizes; the output is the Resize input', async () => {
    const cut = cutTrailingResize(await protoOf('tiny-upsample'))!;
    expect(cut).not.toBeNull();
    expect(cut.outputDims).toEqual([1, 5, 48, 64]);
    expect(cut.outputName).toBe('/smooth/Conv_output_0');
    const weights = onnxModel(cut.model).bytes();
    const text = new TextDecoder('latin1').decode(weights);
    for (const gone of ['Resize', '/Concat_output_0', '/Shape_output_0', '/Slice_output_0']) expect(text.includes(gone)).toBe(false);
    expect(text.includes('AveragePool')).toBe(true);
    const session = await ort.InferenceSession.create(weights);
    expect(session.outputNames).toEqual(['/smooth/Conv_output_0']);
    // onnxruntime infers the cut output's shape from the graph.
    expect(outputShape(session)).toEqual([1, 5, 12, 16]);
    const out = (await session.run({ input: new ort.Tensor('float32', new Float32Array(3 * 48 * 64), [1, 3, 48, 64]) }))[
      '/smooth/Conv_output_0'
    ]!;
    expect(out.dims).toEqual([1, 5, 12, 16]);
    await session.release();
  });

  test('models that do not end in a Resize are left alone', async () => {
    for (const name of ['tiny-legacy', 'tiny-current', 'tiny-nobg', 'tiny-binary'])
      expect(cutTrailingResize(await protoOf(name))).toBeNull();
    expect(cutTrailingResize({})).toBeNull();
  });

  // The upsampled values postprocessing computes are onnxruntime's own: compared here with the full
  // graph on its plain CPU kernel (WASM's kernel; native's `all` level swaps in the NCHWc one, whose
  // float32 sums are ordered differently, see docs/exactness.md).
  test('the virtual upsampled logits equal the removed Resize output bit for bit', async () => {
    const full = await weightsOf('tiny-upsample');
    const cut = cutTrailingResize(readOnnxModel(full).proto)!;
    const options = { graphOptimizationLevel: 'extended', intraOpNumThreads: 1 } as const;
    const [a, b] = await Promise.all([
      ort.InferenceSession.create(full, options),
      ort.InferenceSession.create(onnxModel(cut.model).bytes(), options),
    ]);
    const input = new Float32Array(3 * 48 * 64);
    let seed = 7;
    for (let i = 0; i < input.length; i++) input[i] = ((seed = (seed * 48271) % 2147483647) / 2147483647) * 5 - 2.5;
    const feeds = { input: new ort.Tensor('float32', input, [1, 3, 48, 64]) };
    const want = (await a.run(feeds)).logits!.data as Float32Array;
    const low = (await b.run(feeds))[cut.outputName]!;
    const [, channels, height, width] = low.dims as number[];
    const got = new VirtualUpsampledLogits(
      { data: low.data as Float32Array, channels: channels!, height: height!, width: width! },
      48,
      64,
    ).materialise();
    expect(got.data.length).toBe(want.length);
    let differing = 0;
    for (let i = 0; i < want.length; i++) if (got.data[i] !== want[i]) differing++;
    expect(differing).toBe(0);
    expect(got.data[0]).toBe(low.data[0]); // the corner copies its low-resolution pixel
    await Promise.all([a.release(), b.release()]);
  });
});
