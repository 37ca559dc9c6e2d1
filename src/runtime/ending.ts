// An end that calls can wait on without leaking. Promise.race against a promise that never settles leaves
// one reaction on it per call, kept for as long as that promise lives: a long video call or many segment()
// calls on one worker would pile them up. Here each waiting call is let go as soon as it settles.

export class Ending<E extends Error = Error> {
  #reason: E | null = null;
  readonly #waiting = new Set<(reason: E) => void>();

  /** Why it ended; null until then. */
  get reason(): E | null {
    return this.#reason;
  }

  /** Ends (once): every call still waiting in `guard` rejects with `reason`. */
  end(reason: E): void {
    if (this.#reason) return;
    this.#reason = reason;
    for (const reject of this.#waiting) reject(reason);
    this.#waiting.clear();
  }

  /** `promise`, or a rejection with the reason as soon as this ends, whichever comes first. */
  guard<T>(promise: Promise<T>): Promise<T> {
    if (this.#reason) return Promise.reject(this.#reason);
    return new Promise<T>((resolve, reject) => {
      this.#waiting.add(reject);
      void promise.then(resolve, reject).finally(() => this.#waiting.delete(reject));
    });
  }

  /** Calls waiting now (for tests). */
  get waiting(): number {
    return this.#waiting.size;
  }
}
