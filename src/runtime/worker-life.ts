// Knows when a worker has ended, so that calls waiting on it settle: comlink never settles a request
// whose reply never comes, and a worker that the browser killed, or that closed itself, says nothing.
import type { Remote } from 'comlink';
import { BackendError } from '../errors/index.js';
import { Ending } from './ending.js';
import type { LocalBackendName, WorkerApi } from './protocol.js';

export interface WorkerLife {
  /** Why the worker ended (WORKER_CRASHED, or DISPOSED when it was stopped); null while it lives. */
  ended(): BackendError | null;
  /** Whether it ended because its script never ran (the browser could not fetch it, or refused it). */
  neverRan(): boolean;
  /** `promise`, or a rejection with the reason as soon as the worker ends, whichever comes first. */
  guard<T>(promise: Promise<T>): Promise<T>;
  /** Ends the watch (the worker is being stopped): every guarded call rejects with `reason`. */
  end(reason: BackendError): void;
}

/**
 * Watches `worker` in two ways: its `error` event (an uncaught error: the worker is taken for dead, as it
 * may never answer again; or, as a plain Event rather than an ErrorEvent, a script that never ran), and a Web Lock that the worker holds for its whole life, whose release on the
 * main thread's side means the worker is gone however it went. Where Web Locks are missing only the
 * event is watched; the segmenter's ping before each call still finds a silent death then.
 */
export function watchWorker(worker: Worker, remote: Remote<WorkerApi>, backend: LocalBackendName): WorkerLife {
  let neverRan = false;
  const ending = new Ending<BackendError>();
  const stopLock = new AbortController();

  const end = (reason: BackendError) => {
    if (ending.reason) return;
    ending.end(reason);
    stopLock.abort();
    worker.removeEventListener('error', onError);
  };
  const crashed = (why: string) => new BackendError('WORKER_CRASHED', `the ${backend} worker died: ${why}`, { backend });
  const onError = (event: Event) => {
    event.preventDefault();
    // An uncaught error inside the worker comes as an ErrorEvent; a script that could not be fetched, or
    // that the browser refused (WebKit refuses a revalidated worker script whose 304 lacks the COEP
    // header), as a plain Event.
    if (typeof ErrorEvent === 'function' && event instanceof ErrorEvent) {
      end(crashed(event.message || 'an uncaught error'));
      return;
    }
    neverRan = true;
    end(crashed('its script did not run (it could not be fetched, or the browser refused it)'));
  };
  worker.addEventListener('error', onError);

  const guard = <T>(promise: Promise<T>): Promise<T> => ending.guard(promise);

  void (async () => {
    const locks: LockManager | undefined = globalThis.navigator?.locks;
    if (!locks || typeof crypto.randomUUID !== 'function') return;
    const name = `edgeseg-worker-${crypto.randomUUID()}`;
    // An older worker script without this method, or one that has died already, leaves the event only.
    const held = await guard(remote.holdLifeline(name)).catch(() => false);
    if (!held || ending.reason) return;
    // Granted only once the worker has let go of the lock, that is, once it has ended.
    await locks
      .request(name, { signal: stopLock.signal }, () => end(crashed('it stopped without a word (closed, or ended by the browser)')))
      .catch(() => undefined);
  })();

  return {
    ended: () => ending.reason,
    neverRan: () => neverRan,
    guard,
    end,
  };
}
