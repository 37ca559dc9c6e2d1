// What the two compute passes (gpu-preprocess.ts, gpu-postprocess.ts) share: a pipeline made once, and
// one submission: the small inputs uploaded, the bind group, the dispatch, validation errors caught.

/** Invocations per workgroup in both passes (the shaders' @workgroup_size). */
export const WORKGROUP = 64;
/** Workgroups per dispatch dimension (WebGPU's guaranteed minimum limit). */
const MAX_GROUPS = 65535;

/** A dispatch of `invocations` in rows of at most MAX_GROUPS workgroups; the shader reads `groupsX`. */
export function dispatchSize(invocations: number): { groupsX: number; groupsY: number } {
  const groups = Math.ceil(invocations / WORKGROUP);
  const groupsX = Math.max(1, Math.min(groups, MAX_GROUPS));
  return { groupsX, groupsY: Math.ceil(groups / groupsX) };
}

/** Makes a buffer of CPU data for this submission (uniform or storage, per `usage`). */
export type Upload = (data: ArrayBufferView, usage: number) => GPUBuffer;

export class ComputePass {
  readonly #device: GPUDevice;
  readonly #pipeline: GPUComputePipeline;

  constructor(device: GPUDevice, code: string) {
    this.#device = device;
    this.#pipeline = device.createComputePipeline({
      layout: 'auto',
      compute: { module: device.createShaderModule({ code }), entryPoint: 'main' },
    });
  }

  /**
   * Submits one dispatch. `bindings` gives the resources of bindings 0, 1, … (uploading its inputs
   * with `upload`); `then` encodes what follows the pass (a copy for read-back). The uploaded buffers
   * are destroyed once submitted (queued work keeps what it uses). Resolves to the validation error's
   * message, or null.
   */
  async submit(
    bindings: (upload: Upload) => GPUBindingResource[],
    size: { groupsX: number; groupsY: number },
    then?: (encoder: GPUCommandEncoder) => void,
  ): Promise<string | null> {
    const device = this.#device;
    device.pushErrorScope('validation');
    const made: GPUBuffer[] = [];
    const upload: Upload = (data, usage) => {
      const size = Math.max(16, Math.ceil(data.byteLength / 4) * 4);
      const buffer = device.createBuffer({ size, usage: usage | GPUBufferUsage.COPY_DST });
      // writeBuffer takes whole words: a ragged tail is copied into a padded array first.
      let bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (data.byteLength % 4 !== 0 || data.byteOffset % 4 !== 0) {
        bytes = new Uint8Array(size);
        bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      }
      device.queue.writeBuffer(buffer, 0, bytes.buffer, bytes.byteOffset, Math.ceil(data.byteLength / 4) * 4);
      made.push(buffer);
      return buffer;
    };
    const entries = bindings(upload).map((resource, binding) => ({ binding, resource }));
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(this.#pipeline);
    pass.setBindGroup(0, device.createBindGroup({ layout: this.#pipeline.getBindGroupLayout(0), entries }));
    pass.dispatchWorkgroups(size.groupsX, size.groupsY);
    pass.end();
    then?.(encoder);
    device.queue.submit([encoder.finish()]);
    for (const b of made) b.destroy();
    const invalid = await device.popErrorScope();
    return invalid ? invalid.message : null;
  }
}
