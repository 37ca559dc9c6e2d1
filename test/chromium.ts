// How the test suites start Debian's Chromium: one list of flags, shared by Vitest browser mode and Playwright.
export const CHROMIUM_PATH = process.env.EDGESEG_CHROMIUM ?? '/usr/bin/chromium';

/** Flags for a headless Chromium on a machine with no network but loopback. */
export const CHROMIUM_ARGS = [
  // Makes performance.measureUserAgentSpecificMemory() answer at once instead of at the next GC.
  '--enable-blink-features=ForceEagerMeasureMemory',
  '--headless',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Adds a SwiftShader WebGPU adapter: correct but slow, for tiny models only. */
export const CHROMIUM_WEBGPU_ARGS = [
  ...CHROMIUM_ARGS,
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-angle=swiftshader',
  '--use-webgpu-adapter=swiftshader',
];

/**
 * WebGPU on the machine's real GPU, for the benchmark's WebGPU section: Vulkan, with the headless recipe
 * that Chrome's own guide gives for NVIDIA GPUs on Linux (ANGLE on Vulkan, no Vulkan surface), and the
 * GPU blocklist ignored (server GPUs and their drivers are often on it). Where there is no GPU Chromium
 * offers its SwiftShader adapter instead (isFallbackAdapter: true; so it does on the 2-core machine of
 * bench/RESULTS.md): bench/run.ts reads the adapter and labels such a run as software, not a speed figure.
 */
export const CHROMIUM_GPU_ARGS = [
  ...CHROMIUM_ARGS,
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-angle=vulkan',
  '--disable-vulkan-surface',
  '--ignore-gpu-blocklist',
];
