// Defaults that follow the machine's cores: threads for a model run, and images in flight in a batch.
import { availableParallelism } from 'node:os';

/** Half the cores, at least 1, at most 4. */
export function defaultThreads(): number {
  return Math.min(4, Math.max(1, Math.floor(availableParallelism() / 2)));
}

/**
 * The image being run plus one being decoded or encoded on each core the run leaves free (half of
 * them), at least 2, at most 4: 2 on 2 cores, 3 on 4, 4 from 6 on. More only holds more decoded images
 * in memory; the model runs take turns on the one session anyway.
 */
export function defaultBatchConcurrency(): number {
  return Math.min(4, 1 + Math.max(1, Math.floor(availableParallelism() / 2)));
}
