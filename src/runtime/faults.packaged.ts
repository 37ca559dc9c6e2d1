// The packaged build's page-side faults: none (see faults.ts, which the source tree's tests use).
import type { Fault } from './protocol.js';

export function injectBackendFault(backend: object, fault: Fault): Promise<void> {
  void backend;
  return Promise.reject(new Error(`the packaged edgeseg has no fault injection (asked for ${JSON.stringify(fault)})`));
}

export function takeBlockingFault(backend: object, kind: 'run' | 'load'): boolean {
  void backend;
  void kind;
  return false;
}
