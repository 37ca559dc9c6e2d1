// Types of build-kernels.mjs, for the test that checks the committed module against its source.
export const KERNELS_SOURCE: string;
export const KERNELS_MODULE: string;
export function compileKernels(): Promise<Uint8Array>;
export function kernelsModule(bytes: Uint8Array): string;
