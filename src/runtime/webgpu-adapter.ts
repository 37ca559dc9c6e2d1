// The WebGPU adapter that the `webgpu` backend runs on, or why there is none. The page asks first, before it
// starts a worker for WebGPU, so that a browser without an adapter (Firefox and WebKit without WebGPU,
// headless Chromium) spends no worker, no runtime module and no model download on it; the worker then asks
// for the adapter it runs on.
import { BackendError } from '../errors/index.js';

type GpuNavigator = { gpu?: GPU } | undefined;

/** An adapter as the backend wants one (the discrete GPU where there are two); BACKEND_UNAVAILABLE saying why there is none. */
export async function webgpuAdapter(): Promise<GPUAdapter> {
  const gpu = (globalThis.navigator as GpuNavigator)?.gpu;
  if (!gpu) throw new BackendError('BACKEND_UNAVAILABLE', 'this browser has no WebGPU (navigator.gpu is missing)', { backend: 'webgpu' });
  const adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter)
    throw new BackendError('BACKEND_UNAVAILABLE', 'WebGPU is present but no adapter is available (no GPU, or it is blocked)', {
      backend: 'webgpu',
    });
  return adapter;
}
