// Backpressure on a client that does not read its answers. The answers a server writes to a pipe wait in the stream
// (in hcp's memory) until the client takes them; a client that sends calls and never reads would make hcp hold every
// answer. The Outbox knows that backlog: while it is over a bound, the transports read no new request and start no
// new call (the calls already running finish and are answered), and they go on once the client has taken enough.
// At the end, a client that takes nothing for a while is given up on rather than waited for forever.

import type { Writable } from "node:stream";
import { monotonicMs } from "../runtime/clock.js";
import { RuntimeError } from "../runtime/errors.js";
import { Limiter } from "../runtime/limiter.js";

/**
 * The backlog past which nothing new is read or started. 16 MiB: several answers of the largest size a pack gives by
 * default (its 1 MiB of stdout appears twice in an MCP answer), so that a client that reads is not held back by one
 * big answer, and thousands of small ones; small beside the 64 MiB of requests a stdio server may hold unanswered.
 * What the backlog may reach beyond it: the answers of the calls already running (each pack's limits.concurrency).
 */
export const MAX_BACKLOG_BYTES = 16 * 1024 * 1024;

/**
 * How long a client may take nothing while answers wait for it, once the server is ending, before it is given up on:
 * at the end of stdin the calls still in flight are then cancelled (their children killed), and at exit what it did
 * not take is dropped. 5 s: a client that reads takes something far sooner; a supervisor's SIGKILL (10 s in Docker)
 * comes later.
 */
export const STALL_MS = 5000;

export const cancelled = () => new RuntimeError("cancelled", "cancelled while waiting for the client to read the answers before it; nothing was run");

/** Where answers wait for their clients: a call starts (and takes its slot) only while there is room. */
export interface AnswerRoom {
  /** Resolves once the answers waiting are within the bound; rejects with `cancelled` if `signal` aborts first. */
  room(signal?: AbortSignal): Promise<void>;
  /** The slots of a pack, handed out only while there is room. */
  gate(slots: Limiter): Limiter;
}

/** One stream's answers not yet taken by the client, and the waits on them. */
export class Outbox implements AnswerRoom {
  /** When the client last took something (or when the backlog last began from nothing). */
  private lastTaken = monotonicMs();
  private readonly waiters = new Set<() => void>();
  private gone = false;

  constructor(
    private readonly stream: Writable | NodeJS.WritableStream,
    readonly bound = MAX_BACKLOG_BYTES,
  ) {
    // A stream that closed or failed takes nothing more: whatever waited on it may go on (its writes are dropped).
    const end = () => {
      this.gone = true;
      this.wake();
    };
    (stream as Writable).once("close", end).once("error", end);
  }

  /** Characters written and not yet taken by the client (the stream's own count). */
  get backlog(): number {
    const s = this.stream as Writable;
    return this.gone || s.destroyed || s.writableEnded ? 0 : s.writableLength;
  }

  /** Whether nothing new should be read or started. */
  get full(): boolean {
    return this.backlog > this.bound;
  }

  /** Writes one line; never waits (the callers hold back what comes next instead). */
  line(text: string): void {
    if (this.backlog === 0) this.lastTaken = monotonicMs();
    const s = this.stream as Writable;
    if (this.gone || s.destroyed || s.writableEnded) return;
    s.write(`${text}\n`, this.taken);
  }

  private readonly taken = () => {
    this.lastTaken = monotonicMs();
    if (!this.full) this.wake();
  };

  private wake(): void {
    if (this.waiters.size === 0) return;
    const waiters = [...this.waiters];
    this.waiters.clear();
    for (const w of waiters) w();
  }

  /** Resolves once the backlog is within the bound; rejects with `cancelled` if `signal` aborts first. */
  room(signal?: AbortSignal): Promise<void> {
    if (!this.full) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(ready);
        reject(cancelled());
      };
      const ready = () => {
        signal?.removeEventListener("abort", onAbort);
        // Woken by a write callback while others raced for the room: wait again.
        if (this.full) this.room(signal).then(resolve, reject);
        else resolve();
      };
      this.waiters.add(ready);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Whether answers wait and the client has taken none of them for `ms`. */
  stalled(ms = STALL_MS): boolean {
    return this.backlog > 0 && monotonicMs() - this.lastTaken >= ms;
  }

  /**
   * Resolves once the client has taken nothing for `ms` while answers wait, at a time `also` holds (the server is
   * ending); never, once `signal` aborts.
   */
  whenStalled(signal: AbortSignal, also: () => boolean = () => true, ms = STALL_MS): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return;
      const timer = setInterval(() => {
        if (!this.stalled(ms) || !also()) return;
        clearInterval(timer);
        resolve();
      }, Math.max(50, ms / 10));
      signal.addEventListener("abort", () => clearInterval(timer), { once: true });
    });
  }

  /**
   * The slots of a pack for this client's calls: a slot is handed out only once the backlog is within the bound, so
   * that no child starts (and no answer is made) while the client is not reading; waiting holds the slot.
   */
  gate(slots: Limiter): Limiter {
    return new GatedSlots(slots, this);
  }
}

/** A pack's slots (shared by every call of the server) that also wait for room where the answers wait. */
export class GatedSlots extends Limiter {
  constructor(
    private readonly slots: Limiter,
    private readonly outbox: Pick<AnswerRoom, "room">,
  ) {
    super(slots.max);
  }

  override async acquire(signal?: AbortSignal): Promise<() => void> {
    const release = await this.slots.acquire(signal);
    try {
      await this.outbox.room(signal);
    } catch (err) {
      release();
      throw err;
    }
    return release;
  }
}

/**
 * At the end of a program whose answers went to `stream`: exits once the client has taken nothing for `ms` while
 * answers still wait (Node would wait for it forever). Every child is dead by then; only answers are lost.
 */
export function exitIfNeverTaken(stream: Writable | NodeJS.WritableStream, ms = STALL_MS): void {
  const s = stream as Writable;
  let left = s.writableLength;
  let since = monotonicMs();
  const timer = setInterval(() => {
    const now = s.destroyed ? 0 : s.writableLength;
    if (now === 0) return clearInterval(timer);
    if (now < left) {
      left = now;
      since = monotonicMs();
      return;
    }
    if (monotonicMs() - since < ms) return;
    clearInterval(timer);
    process.stderr.write(`hcp: the client took none of the last ${now} characters of answers for ${ms / 1000} s; exiting without them\n`);
    // process.exitCode is the program's own by now (the command has returned).
    process.exit();
  }, Math.max(50, ms / 10));
  // It never keeps the program alive: the write it watches does, while it lasts.
  timer.unref();
}
