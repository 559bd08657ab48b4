// A bound on work running at once: a counting semaphore whose waiters are served first come, first served.
// The transports share it: `hcp exec` bounds the requests it reads, and every server bounds each pack's children.

import { RuntimeError } from "./errors.js";

export class Limiter {
  private active = 0;
  private readonly waiting = new Set<() => void>();

  constructor(readonly max: number) {
    if (!Number.isSafeInteger(max) || max < 1) throw new RangeError(`a limit must be a positive integer, got ${max}`);
  }

  /** Waits for a free slot; returns its release (safe to call twice). Aborting while waiting rejects with `cancelled`. */
  acquire(signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(cancelled());
    if (this.active < this.max) {
      this.active++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiting.delete(grant);
        reject(cancelled());
      };
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.active++;
        resolve(this.releaser());
      };
      this.waiting.add(grant);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Runs work in a slot. */
  async run<T>(work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const release = await this.acquire(signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private releaser(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      this.active--;
      const [next] = this.waiting;
      if (next !== undefined) {
        this.waiting.delete(next);
        next();
      }
    };
  }
}

const cancelled = () => new RuntimeError("cancelled", "cancelled while waiting for a free slot; nothing was run");
