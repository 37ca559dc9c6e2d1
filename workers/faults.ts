// Faults a test injects into the worker (see `Fault` in src/runtime/protocol.ts). The packaged worker build swaps this
// module for faults.packaged.ts, which plays none: the test hook does not ship.
import { BackendError, type BackendName } from '../src/errors/index.js';
import type { Fault } from '../src/runtime/protocol.js';

let pending: Fault | null = null;
/** Each run's extra time, ms (`slow-runs`: from then on, for the worker's life). */
let slowness = 0;

/** Arms `fault` for the next call (`slow-runs`: every call from now on). */
export function injectFault(fault: Fault): void {
  if (fault === 'slow-runs') slowness = 150;
  else pending = fault;
}

/** `run`, after the extra time of `slow-runs` (a model slower than the frames that come). */
export async function slowed<T>(run: () => Promise<T>): Promise<T> {
  if (slowness) await new Promise((resolve) => setTimeout(resolve, slowness));
  return run();
}

/** Whether any fault is armed (the backend's own preprocessing is skipped then, so the fault plays in `run`). */
export function faultArmed(): boolean {
  return pending !== null;
}

/** Blocks the worker's thread for good: a wait nothing ends (where shared memory is missing, a loop that never ends). */
function block(): never {
  if (typeof SharedArrayBuffer === 'function') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
  for (;;);
}

/** Plays an armed `block-in-load` as the load begins. */
export function playLoadFault(): void {
  if (pending === 'block-in-load') block();
}

/** Whether the worker is to die silently before its next call (`crash`). */
export function crashArmed(): boolean {
  return pending === 'crash';
}

/**
 * Plays an armed run fault: a failed run, or a worker that dies, throws uncaught or hangs. Null when
 * none is armed (`crash` plays at the next ping, not here).
 */
export function playRunFault(backend: BackendName): Promise<never> | null {
  const fault = pending;
  if (!fault || fault === 'crash' || fault === 'block-in-load') return null;
  pending = null;
  if (fault === 'run') {
    return Promise.reject(
      new BackendError('BACKEND_FAILED', `the ${backend} backend failed while running (injected fault, as a lost device would)`, {
        backend,
      }),
    );
  }
  if (fault === 'crash-in-run') self.close();
  if (fault === 'block-in-run') block();
  if (fault === 'error-in-run') {
    setTimeout(() => {
      throw new Error('injected uncaught error in the worker');
    });
  }
  return new Promise<never>(() => undefined);
}
