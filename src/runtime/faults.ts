// Faults a test injects on the page's side: the worker's own (workers/faults.ts) sent to it, and the
// blocking ones that the backend must find out sooner than it would a real stall. The packaged build swaps
// this module for faults.packaged.ts, which plays none: the test hook does not ship.
import type { Fault } from './protocol.js';

/** A worker backend as a fault reaches it: its worker's remote (null once stopped). */
interface FaultTarget {
  readonly remote: { injectFault(fault: Fault): Promise<void> } | null;
}

/** The blocking fault armed for each backend's next run or load. */
const blocking = new WeakMap<object, 'run' | 'load'>();

/**
 * Test hook: makes the backend's worker fail its next run, die before the next call, or die, hang or block
 * during it; or (`block-in-load`) makes the next worker the backend starts block while it loads.
 */
export async function injectBackendFault(backend: FaultTarget, fault: Fault): Promise<void> {
  // `block-in-load` is for the next worker started (the backend arms it there); the others go to this one.
  if (fault === 'block-in-load') {
    blocking.set(backend, 'load');
    return;
  }
  if (fault === 'block-in-run') blocking.set(backend, 'run');
  await backend.remote?.injectFault(fault);
}

/**
 * Whether a blocking fault is armed for this `kind` of the backend's work (it applies to the next one
 * only): the call or load it blocks is then found out in 2 s rather than in STALL_MS.
 */
export function takeBlockingFault(backend: object, kind: 'run' | 'load'): boolean {
  if (blocking.get(backend) !== kind) return false;
  blocking.delete(backend);
  return true;
}
