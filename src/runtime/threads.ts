// WASM thread count in browsers: how many the model runs on, chosen from the cores by the rule the bench
// measured (bench/RESULTS.md, "Threads"), and why; threads need cross-origin isolation and SharedArrayBuffer.
import { InvalidInputError } from '../errors/index.js';

/** The most WASM threads `numThreads` takes: onnxruntime-web sets no bound, and starts one worker for each thread but one. */
const MAX_THREADS = 64;
/** The most threads the default gives: onnxruntime-web's own default stops there, and a model of a few milliseconds a run (the people model: 8–13 ms on one thread) has little work per operator to share out past it. */
const DEFAULT_MAX_THREADS = 4;
/** Cores taken where the browser does not tell its own (`navigator.hardwareConcurrency`). */
const UNKNOWN_CORES = 2;

/**
 * What the model runs for: `stills` (segment() and its kin, one image at a time) or `video`, where the
 * frame loop's own worker works beside the model on every frame and needs a core of its own.
 */
export type ThreadUse = 'stills' | 'video';

/** How the WASM thread count was chosen: `Segmenter.threads`, and live video's `stats.threads`. */
export interface ThreadChoice {
  /** The WASM threads the model runs on (as `Segmenter.numThreads`). */
  numThreads: number;
  /** The cores the browser reports (`navigator.hardwareConcurrency`); null where it tells none. */
  cores: number | null;
  /**
   * `'option'`: the `numThreads` given; `'default'`: edgeseg's rule for these cores (for live video, one
   * thread fewer: the frame loop's worker takes a core); `'one-thread'`: the page or the bundle allows one (see `fallbacks`).
   */
  source: 'option' | 'default' | 'one-thread';
  /** Why, for people: the rule and the count it gave, or what limits the page to one thread. */
  reason: string;
}

export interface ThreadPlan {
  /** Set when the page or the browser chose one thread: the fallback log says why. */
  oneThread: { code: 'NOT_ISOLATED' | 'NO_SHARED_MEMORY'; message: string } | null;
  choice: ThreadChoice;
}

export interface ThreadInputs {
  /** `crossOriginIsolated` of the page. */
  isolated: boolean;
  /** Whether the browser has SharedArrayBuffer (WebKitGTK lacks it even on an isolated page). */
  sharedMemory: boolean;
  /** `navigator.hardwareConcurrency`, where the browser tells it. */
  cores: number | undefined;
  /** The caller's `numThreads`, if given: used as is where threads can run (one thread always can). */
  requested: number | undefined;
  /** Whether a local backend (webgpu, wasm) is among those to try; the note concerns only them. */
  local: boolean;
  /** What the model runs for (the default differs). */
  use: ThreadUse;
}

/** Refuses a `numThreads` that is not a whole number of threads onnxruntime-web can start, naming the range. */
export function checkNumThreads(value: unknown): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_THREADS)
    throw new InvalidInputError(
      'OPTION_INVALID',
      `numThreads must be a whole number of WASM threads from 1 to ${MAX_THREADS}, got ${typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? typeof value)}`,
    );
}

/** The browser's core count where it tells a usable one; null where it tells none (or nonsense). */
const coresOf = (cores: number | undefined): number | null => (cores !== undefined && Number.isInteger(cores) && cores >= 1 ? cores : null);

/**
 * The default thread count for `cores` (logical processors, as `navigator.hardwareConcurrency` counts them).
 * Stills: half of them, about one thread a physical core where each runs two, at most DEFAULT_MAX_THREADS.
 * Video: one fewer, at least one, for the frame loop's worker, which refines and composites each frame
 * while the model runs the next. On 2 cores a second WASM thread made video slower and stills no faster
 * on balance, and on 1 core it took 1.6–2.6× the time (bench/RESULTS.md, "Threads"). Larger machines could
 * not be measured: above 2 cores the rule is onnxruntime-web's own default (half the cores, at most 4),
 * rounded down where onnxruntime-web rounds up, with the loop's core taken out.
 */
export function defaultThreads(cores: number | undefined, use: ThreadUse): number {
  const half = Math.floor((coresOf(cores) ?? UNKNOWN_CORES) / 2);
  return Math.min(DEFAULT_MAX_THREADS, Math.max(1, use === 'video' ? half - 1 : half));
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Why the default gave what it gave, in a sentence. */
function defaultReason(cores: number | null, use: ThreadUse, numThreads: number): string {
  const told = cores === null ? `the browser does not tell its cores (taken as ${UNKNOWN_CORES})` : plural(cores, 'core');
  const threads = plural(numThreads, 'WASM thread');
  return use === 'video'
    ? `${told}: ${threads} for the model (half the cores less one for the frame loop's worker; at least 1, at most ${DEFAULT_MAX_THREADS})`
    : `${told}: ${threads} (half the cores, at least 1, at most ${DEFAULT_MAX_THREADS})`;
}

/**
 * The caller's count, or the default for the cores and the use, when threads can run; 1 otherwise, with a
 * note that says why, also when the caller asked for more (onnxruntime-web would run one thread and say nothing).
 */
export function planThreads({ isolated, sharedMemory, cores, requested, local, use }: ThreadInputs): ThreadPlan {
  const told = coresOf(cores);
  const plan = (numThreads: number, source: ThreadChoice['source'], reason: string, oneThread: ThreadPlan['oneThread'] = null) => ({
    oneThread,
    choice: { numThreads, cores: told, source, reason },
  });
  if (!local) return plan(1, 'default', 'only the hosted route runs the model: no WASM threads');
  if (requested !== undefined && (requested <= 1 || (isolated && sharedMemory)))
    return plan(requested, 'option', `numThreads: ${requested}, as given`);
  if (!isolated || !sharedMemory) {
    const oneThread = !isolated
      ? { code: 'NOT_ISOLATED' as const, message: 'the page is not cross-origin isolated (COOP/COEP): WASM runs on one thread' }
      : {
          code: 'NO_SHARED_MEMORY' as const,
          message: 'this browser has no SharedArrayBuffer, even on this cross-origin isolated page: WASM runs on one thread',
        };
    return plan(1, 'one-thread', oneThread.message, oneThread);
  }
  const numThreads = defaultThreads(cores, use);
  return plan(numThreads, 'default', defaultReason(told, use, numThreads));
}

/** The plan for this page. */
export function browserThreadPlan(requested: number | undefined, local: boolean, use: ThreadUse): ThreadPlan {
  return planThreads({
    isolated: globalThis.crossOriginIsolated === true,
    sharedMemory: typeof SharedArrayBuffer === 'function',
    cores: globalThis.navigator?.hardwareConcurrency,
    requested,
    local,
    use,
  });
}
