// The default thread count for model runs: half the cores, at least 1, at most 4.
import { availableParallelism } from 'node:os';

export function defaultThreads(): number {
  return Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2)));
}
