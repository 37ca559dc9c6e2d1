// How many bytes of request bodies the platform holds at once. A body is kept whole until its request is
// answered, and a legal one may be 31 MB (a synthetic image's JSON) and take two minutes to arrive: forty
// slow ones took a server from 88 MB to 1.27 GB. So bodies are charged, as their bytes are announced or
// arrive, against a budget for all requests and one for each workspace key, and a request past either is
// refused at once with 503 and `Retry-After`. Requests without a body (the catalog's GETs) are never held.
import { HttpError, type BodyHold } from './http.js';

export interface BodyBudgetLimits {
  /** Bytes of request bodies held at once, all requests together. */
  maxBodyBytesInFlight: number;
  /** Bytes of request bodies held at once by the requests of one workspace's key. */
  maxBodyBytesPerKey: number;
  /** Seconds a refused client is told to wait (`Retry-After`). */
  retryAfterS: number;
}

/** One request's share of the budget: it grows as the body comes in, and is given back once. */
export interface ReleasableHold extends BodyHold {
  /** Gives back what the hold took (once; a bound function, to be handed to a listener as is). */
  readonly release: () => void;
}

export class BodyBudget {
  #total = 0;
  #peak = 0;
  #byKey = new Map<string, number>();

  constructor(private readonly limits: BodyBudgetLimits) {}

  /** Bytes held now, and the most ever held at once (for tests and logs). */
  get held(): { bytes: number; peak: number; keys: number } {
    return { bytes: this.#total, peak: this.#peak, keys: this.#byKey.size };
  }

  /** A hold for one request of `key` (the workspace whose key it carries). */
  hold(key: string): ReleasableHold {
    let held = 0;
    return {
      grow: (bytes) => {
        const more = bytes - held;
        if (more <= 0) return;
        const ofKey = this.#byKey.get(key) ?? 0;
        if (this.#total + more > this.limits.maxBodyBytesInFlight)
          throw this.#busy(
            `the server holds ${mb(this.#total)} of request bodies, and takes ${mb(this.limits.maxBodyBytesInFlight)} at once`,
          );
        if (ofKey + more > this.limits.maxBodyBytesPerKey)
          throw this.#busy(
            `this key's requests hold ${mb(ofKey)} of request bodies, and may hold ${mb(this.limits.maxBodyBytesPerKey)} at once`,
          );
        held = bytes;
        this.#total += more;
        this.#peak = Math.max(this.#peak, this.#total);
        this.#byKey.set(key, ofKey + more);
      },
      release: () => {
        if (held === 0) return;
        this.#total -= held;
        const left = (this.#byKey.get(key) ?? held) - held;
        if (left > 0) this.#byKey.set(key, left);
        else this.#byKey.delete(key);
        held = 0;
      },
    };
  }

  #busy(message: string): HttpError {
    const error = new HttpError(
      503,
      message,
      'ServerBusy',
      `retry after ${this.limits.retryAfterS} s, or send fewer large requests at once`,
    );
    error.retryAfterS = this.limits.retryAfterS;
    return error;
  }
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
