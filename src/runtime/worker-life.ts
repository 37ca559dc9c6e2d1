// Knows when a worker has ended, so that calls waiting on it settle: comlink never settles a request
// whose reply never comes, and a worker that the browser killed, or that closed itself, says nothing.
import type { Remote } from 'comlink';
import { BackendError } from '../errors/index.js';
import { Ending } from './ending.js';
import type { LocalBackendName, WorkerApi } from './protocol.js';

/**
 * How long a worker may leave a ping unanswered while it works before it is taken for stuck. A run blocks
 * the worker's thread (onnxruntime-web's WASM runs synchronously there), so the limit is far above any
 * run's time. A thread blocked for good is not: Firefox (153 ESR), now and then, never returns from the
 * `new Worker()` that onnxruntime-web calls inside our worker to start its WASM threads.
 */
export const STALL_MS = 30_000;
/** How often a working worker is pinged. */
const BEAT_MS = 1000;

export interface WorkerLife {
  /** Why the worker ended (WORKER_CRASHED, or DISPOSED when it was stopped); null while it lives. */
  ended(): BackendError | null;
  /** Whether it ended because its script never ran (the browser could not fetch it, or refused it). */
  neverRan(): boolean;
  /** `promise`, or a rejection with the reason as soon as the worker ends, whichever comes first. */
  guard<T>(promise: Promise<T>): Promise<T>;
  /** Ends the watch (the worker is being stopped): every guarded call rejects with `reason`. */
  end(reason: BackendError): void;
  /**
   * `call` (a call to the worker), guarded, with the worker pinged while it is pending: a worker that
   * leaves a ping unanswered for `stallMs` is stuck. It is stopped, and the call rejects (WORKER_CRASHED).
   */
  working<T>(call: Promise<T>, stallMs?: number): Promise<T>;
  /** Whether it was stopped because it was stuck (see `working`). */
  stalled(): boolean;
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

  // The stall watch: while calls work, one ping at a time is outstanding; its age is what is measured.
  let working = 0;
  let limit = STALL_MS;
  let beat: ReturnType<typeof setInterval> | undefined;
  let pingSince: number | null = null;
  let lastCheck = 0;
  let stalled = false;
  const check = () => {
    const now = performance.now();
    // Timers held back (a frozen or throttled page) say nothing of the worker: the watch starts again.
    const held = now - lastCheck > 4 * BEAT_MS;
    lastCheck = now;
    if (ending.reason || working === 0) {
      clearInterval(beat);
      beat = undefined;
      pingSince = null;
      return;
    }
    if (pingSince === null || held) {
      const since = (pingSince = now);
      guard(remote.ping()).then(
        () => pingSince === since && (pingSince = null),
        () => undefined,
      );
      return;
    }
    if (now - pingSince < limit) return;
    stalled = true;
    end(
      new BackendError(
        'WORKER_CRASHED',
        `the ${backend} worker was stuck: it answered nothing for ${limit / 1000} s while it worked, and was stopped`,
        { backend },
      ),
    );
    worker.terminate();
  };

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
    working: (call, stallMs = STALL_MS) => {
      working++;
      limit = stallMs;
      if (!beat) {
        lastCheck = performance.now();
        beat = setInterval(check, Math.min(BEAT_MS, stallMs / 4));
      }
      return guard(call).finally(() => working--);
    },
    stalled: () => stalled,
  };
}
