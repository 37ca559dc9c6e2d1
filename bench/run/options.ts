// The bench's command-line flags and what follows from them.
import { join } from 'node:path';
import { ROOT } from '../paths.js';

/** The word after `--name` on the command line, if it is there. */
export const textFlag = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
/** The number after `--name` on the command line, if it is there. */
export const flag = (name: string) => {
  const text = textFlag(name);
  return text === undefined ? undefined : Number(text);
};
export const quick = process.argv.includes('--quick');
export const RUNS = flag('runs') ?? (quick ? 5 : 20);
export const WARMUP = flag('warmup') ?? (quick ? 1 : 3);
export const SECONDS = flag('seconds') ?? (quick ? 3 : 8);
export const MEMORY_CALLS = flag('calls') ?? (quick ? 200 : 1000);
/** WASM threads asked of every runtime (`--threads N`; 2 by default, the cores of the machine the targets were set on). */
export const THREADS = flag('threads') ?? 2;
export const WEBGPU_ONLY = process.argv.includes('--webgpu-only');
export const PEOPLE_ONLY = process.argv.includes('--people-only');
export const WEBGPU = WEBGPU_ONLY || process.argv.includes('--webgpu');
/** Every model and image on WebGPU even when the adapter is software (minutes per LRASPP run there). */
export const WEBGPU_ALL = process.argv.includes('--webgpu-all');
/** The fake camera's frame rate in the video section (`--video-fps N`; 60 by default, as the targets were set). */
export const VIDEO_FPS = flag('video-fps') ?? 60;
/** `--video-only`: the video section alone (bench/run/video.ts). */
export const VIDEO_ONLY = process.argv.includes('--video-only');
/** `--video-soak`: the long call alone (`--soak-minutes N`). */
export const VIDEO_SOAK = process.argv.includes('--video-soak');
export const ENGINES_ONLY = process.argv.includes('--engines-only');
/** `--threads-only`: the threads section alone (bench/run/threads.ts). */
export const THREADS_ONLY = process.argv.includes('--threads-only');
/** `--first-visit-only`: the first-visit section alone (bench/run/first-visit.ts). */
export const FIRST_VISIT_ONLY = process.argv.includes('--first-visit-only');
export const OUT = join(ROOT, 'bench', 'out');
export const line = (s = '') => console.log(s);
