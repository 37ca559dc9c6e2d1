// Wraps an onnxruntime InferenceSession (node or web build; they share one API) as a model runner:
// used by the Node backends and by the browser worker alike.
import { BackendError, ModelPackageError, type BackendName } from '../errors/index.js';
import type { Dim, ModelIo } from '../model/index.js';
import type { PrepareInput, RunModel } from '../pipeline/index.js';

/**
 * A loaded model that runs one input at a time.
 * - `io`: the model's input and output shapes, for the package shape check.
 * - `run`: `[1, 3, H, W]` float32 in, logits `[1, C, h, w]` out; callers serialise runs.
 * - `dispose`: frees the session; `run` must not be called afterwards.
 */
export interface SessionRunner<N extends BackendName = BackendName> {
  readonly name: N;
  readonly io: ModelIo;
  readonly run: RunModel;
  /** Preprocessing where the model runs, where this backend does it (WebGPU). */
  readonly prepare?: PrepareInput;
  dispose(): Promise<void>;
}

// The part of onnxruntime's API that is used here, declared here rather than imported from
// onnxruntime-common: edgeseg's type declarations then name no package that a user was not told to
// install (onnxruntime-common comes only as a dependency of onnxruntime-node and -web). Both builds'
// modules are assignable to OrtModule.

/** A tensor as onnxruntime returns it. */
export interface OrtTensor {
  readonly type: string;
  readonly dims: readonly number[];
  readonly data: unknown;
}

/** What onnxruntime says of a model input or output: a tensor's shape (symbolic dimensions as names). */
export type OrtValueMetadata = { readonly isTensor: false } | { readonly isTensor: true; readonly shape: ReadonlyArray<number | string> };

/** A loaded model. */
export interface OrtSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly OrtValueMetadata[];
  readonly outputMetadata: readonly OrtValueMetadata[];
  run(feeds: Record<string, OrtTensor>): Promise<Record<string, OrtTensor>>;
  release(): Promise<void>;
}

/** Session options (execution providers, graph optimisation…): each build checks its own, so any object here. */
export type OrtSessionOptions = object;

export type OrtModule = {
  InferenceSession: { create(bytes: Uint8Array, options?: OrtSessionOptions): Promise<OrtSession> };
  Tensor: new (type: 'float32', data: Float32Array, dims: readonly number[]) => OrtTensor;
};

/**
 * A tensor's shape as onnxruntime reports it, for the package shape check, with a dim that is unknown and
 * unnamed as null. onnxruntime-web reports such a dim (one with neither value nor name, or `dim_value: -1`
 * as paddle2onnx writes it) as 4294967295, its -1 read as an unsigned 32-bit number; onnxruntime-node as "".
 */
export function shapeOf(m: OrtValueMetadata | undefined): Dim[] {
  if (!m || !m.isTensor) return [];
  return m.shape.map((d) => (typeof d === 'number' && (d < 0 || d === 2 ** 32 - 1) ? null : d));
}

export async function sessionRunner<N extends BackendName>(
  name: N,
  ort: OrtModule,
  weights: Uint8Array,
  options: OrtSessionOptions,
): Promise<SessionRunner<N>> {
  let session: OrtSession;
  try {
    session = await ort.InferenceSession.create(weights, options);
  } catch (cause) {
    throw new ModelPackageError('MODEL_LOAD_FAILED', `onnxruntime (${name}) could not load weights.onnx: ${(cause as Error).message}`, {
      cause,
    });
  }
  const input = session.inputMetadata[0];
  const output = session.outputMetadata[0];
  const inputName = session.inputNames[0]!;
  const outputName = session.outputNames[0]!;
  return {
    name,
    io: { input: shapeOf(input), output: shapeOf(output) },
    async run({ data, dims }) {
      let result: Record<string, OrtTensor>;
      try {
        result = await session.run({ [inputName]: new ort.Tensor('float32', data, dims) });
      } catch (cause) {
        throw new BackendError('BACKEND_FAILED', `the ${name} backend failed while running the model: ${(cause as Error).message}`, {
          cause,
          backend: name,
        });
      }
      const logits = result[outputName]!;
      const [, channels, height, width] = logits.dims as number[];
      if (logits.type !== 'float32' || logits.dims.length !== 4) {
        throw new ModelPackageError(
          'MODEL_OUTPUT_SHAPE',
          `the model returned ${logits.type} [${logits.dims.join(', ')}]; expected float32 [1, C, h, w]`,
        );
      }
      return { data: logits.data as Float32Array, channels: channels!, height: height!, width: width! };
    },
    async dispose() {
      await session.release();
    },
  };
}
