// What the two compute passes (gpu-preprocess.ts, gpu-postprocess.ts) share: their dispatch shape and
// the upload of their small inputs.

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

/** Buffers made from CPU data for one pass, destroyed together once the pass is submitted or failed. */
export function uploads(device: GPUDevice): { upload(data: ArrayBufferView, usage: number): GPUBuffer; destroy(): void } {
  const made: GPUBuffer[] = [];
  return {
    upload(data, usage) {
      const size = Math.max(16, Math.ceil(data.byteLength / 4) * 4);
      const buffer = device.createBuffer({ size, usage: usage | GPUBufferUsage.COPY_DST });
      // writeBuffer takes whole words: a ragged tail is copied into a padded array first.
      let bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      if (data.byteLength % 4 !== 0 || data.byteOffset % 4 !== 0) {
        bytes = new Uint8Array(size);
        bytes.set(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      }
      device.queue.writeBuffer(buffer, 0, bytes.buffer as ArrayBuffer, bytes.byteOffset, Math.ceil(data.byteLength / 4) * 4);
      made.push(buffer);
      return buffer;
    },
    destroy() {
      for (const b of made) b.destroy();
      made.length = 0;
    },
  };
}
