// The packaged worker's faults: none (see faults.ts, which the worker of the source tree uses in tests).
import type { BackendName } from '../src/errors/index.js';
import type { Fault } from '../src/runtime/protocol.js';

export function injectFault(fault: Fault): void {
  throw new Error(`the packaged edgeseg worker has no fault injection (asked for ${JSON.stringify(fault)})`);
}

export function faultArmed(): boolean {
  return false;
}

export function playLoadFault(): void {}

export function crashArmed(): boolean {
  return false;
}

export function playRunFault(backend: BackendName): Promise<never> | null {
  void backend;
  return null;
}

export function slowed<T>(run: () => Promise<T>): Promise<T> {
  return run();
}
