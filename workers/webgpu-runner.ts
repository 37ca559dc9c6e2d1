// The `webgpu` backend's model runner: onnxruntime-web's WebGPU execution provider on a device we share
// with it, so that the logits never leave the GPU: the compute pass in gpu-postprocess.ts reads them.
import type { InferenceSession, Tensor } from 'onnxruntime-common';
import { BackendError, ModelPackageError } from '../src/errors/index.js';
import { shapeOf, type SessionRunner } from '../src/ort/ort-session.js';
import { classIdsFromLogits, type DeviceLogits, type Logits, type PreparedInput } from '../src/pipeline/index.js';
import { GpuPostprocessor } from './gpu-postprocess.js';
import { GpuPreprocessor } from './gpu-preprocess.js';
import { binaryProblem } from './ort-from-url.js';
import { importOrt } from './ort-import.js';
import { webgpuAdapter } from '../src/runtime/webgpu-adapter.js';
import type { OrtFiles } from '../src/runtime/protocol.js';

type OrtWebgpu = {
  InferenceSession: { create(bytes: Uint8Array, options?: InferenceSession.SessionOptions): Promise<InferenceSession> };
  Tensor: (new (type: 'float32', data: Float32Array, dims: readonly number[]) => Tensor) & {
    fromGpuBuffer(buffer: GPUBuffer, options: { dataType: 'float32'; dims: readonly number[] }): Tensor;
  };
  // As onnxruntime-common declares it: set a device, get a promise of the one in use.
  env: { wasm: { numThreads: number; proxy: boolean }; webgpu: { get device(): Promise<GPUDevice>; set device(value: GPUDevice) } };
};

export async function createWebgpuRunner(
  weights: Uint8Array,
  numThreads: number,
  files: OrtFiles | undefined,
  adapter?: GPUAdapter,
): Promise<{ runner: SessionRunner<'webgpu'>; adapter: string }> {
  adapter ??= await webgpuAdapter();
  const features = (['shader-f16', 'timestamp-query', 'subgroups'] as const).filter((f) => adapter.features.has(f));
  const device = await adapter.requestDevice({
    requiredFeatures: features as GPUFeatureName[],
    requiredLimits: {
      maxBufferSize: adapter.limits.maxBufferSize,
      maxStorageBufferBindingSize: adapter.limits.maxStorageBufferBindingSize,
      maxComputeWorkgroupStorageSize: adapter.limits.maxComputeWorkgroupStorageSize,
    },
  });
  let lost: string | null = null;
  let ort: OrtWebgpu;
  try {
    ort = (await importOrt('webgpu', files)) as OrtWebgpu;
  } catch (error) {
    device.destroy();
    throw error;
  }
  ort.env.wasm.numThreads = numThreads;
  ort.env.wasm.proxy = false;
  ort.env.webgpu.device = device;
  let session: InferenceSession;
  try {
    session = await ort.InferenceSession.create(weights, {
      executionProviders: ['webgpu'],
      graphOptimizationLevel: 'all',
      preferredOutputLocation: 'gpu-buffer',
    });
  } catch (cause) {
    device.destroy();
    const missing = await binaryProblem(files, 'webgpu');
    if (missing) throw missing;
    throw new ModelPackageError('MODEL_LOAD_FAILED', `onnxruntime (webgpu) could not load weights.onnx: ${(cause as Error).message}`, {
      cause,
    });
  }
  // Some onnxruntime-web builds keep a device of their own; the shader must run on the one that holds
  // the logits, which the getter returns once a session exists.
  const used = await ort.env.webgpu.device;
  if (used !== device) device.destroy();
  void used.lost.then((info) => (lost = `the GPU device was lost (${info.reason}): ${info.message}`));
  const post = new GpuPostprocessor(used);
  const pre = new GpuPreprocessor(used);
  const inputName = session.inputNames[0]!;
  const outputName = session.outputNames[0]!;
  const failed = (cause: unknown) =>
    new BackendError('BACKEND_FAILED', lost ?? `the webgpu backend failed while running the model: ${(cause as Error)?.message ?? cause}`, {
      cause,
      backend: 'webgpu',
    });
  const runOn = async (input: Tensor): Promise<Logits | DeviceLogits> => {
    if (lost) throw failed(null);
    let output: Tensor;
    try {
      output = (await session.run({ [inputName]: input }))[outputName] as Tensor;
    } catch (cause) {
      throw failed(cause);
    }
    const [, channels, height, width] = output.dims as number[];
    if (output.type !== 'float32' || output.dims.length !== 4) {
      output.dispose();
      throw new ModelPackageError(
        'MODEL_OUTPUT_SHAPE',
        `the model returned ${output.type} [${output.dims.join(', ')}]; expected float32 [1, C, h, w]`,
      );
    }
    return {
      async read() {
        try {
          return { data: (await output.getData()) as Float32Array, channels: channels!, height: height!, width: width! };
        } catch (cause) {
          output.dispose();
          throw failed(cause);
        }
      },
      async classIds(meta, options, out) {
        try {
          const ids =
            output.location === 'gpu-buffer'
              ? await post.classIds({ buffer: output.gpuBuffer, channels: channels!, height: height!, width: width! }, meta, options)
              : null;
          if (ids) return ids;
          // The rare case the shader leaves to the CPU (a centre crop that cut the image).
          return classIdsFromLogits(
            { data: (await output.getData()) as Float32Array, channels: channels!, height: height!, width: width! },
            meta,
            options,
            out,
          );
        } catch (cause) {
          throw cause instanceof ModelPackageError ? cause : failed(cause);
        } finally {
          output.dispose();
        }
      },
    };
  };
  const info = (adapter as GPUAdapter & { info?: GPUAdapterInfo }).info;
  return {
    adapter: info ? `${info.vendor || 'unknown vendor'} ${info.architecture || ''}`.trim() : 'unknown',
    runner: {
      name: 'webgpu',
      io: { input: shapeOf(session.inputMetadata[0]), output: shapeOf(session.outputMetadata[0]) },
      run: ({ data, dims }) => runOn(new ort.Tensor('float32', data, dims)),
      async prepare(image, spec): Promise<PreparedInput | null> {
        const input = await pre.prepare(image, spec);
        if (!input) return null;
        const dims = [1, 3, input.meta.inputHeight, input.meta.inputWidth];
        const free = () => input.buffer.destroy();
        const run = async () => {
          const logits = await runOn(ort.Tensor.fromGpuBuffer(input.buffer, { dataType: 'float32', dims })).catch((error: unknown) => {
            free();
            throw error;
          });
          if (!('classIds' in logits)) {
            free();
            return logits;
          }
          // The input buffer goes once the class ids are back: the model's GPU work is done by then.
          return {
            classIds: (meta, options, out) => logits.classIds(meta, options, out).finally(free),
            ...(logits.read ? { read: logits.read.bind(logits) } : {}),
          } satisfies DeviceLogits;
        };
        return { meta: input.meta, run };
      },
      async dispose() {
        post.destroy();
        await session.release();
        if (used === device) device.destroy(); // a device onnxruntime-web made is its own to keep
      },
    },
  };
}
