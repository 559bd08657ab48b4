// What `hcp serve --mcp --http` takes on at once: the requests it is answering, and the request bodies they hold.
// Past either bound a request is refused at once (503 with Retry-After) rather than queued: each request held costs
// memory (its body, its answer) and would only wait behind limits.concurrency, while a client told to retry can wait
// on its side, or go to another instance behind a load balancer. The answers their clients have not taken are bounded
// too, as on stdio (outbox.ts): past the bound no call starts, and an answer its client takes nothing of is dropped.

import type { ServerResponse } from "node:http";
import { monotonicMs } from "../runtime/clock.js";
import type { Limiter } from "../runtime/limiter.js";
import { cancelled, GatedSlots, MAX_BACKLOG_BYTES, STALL_MS, type AnswerRoom } from "./outbox.js";

/** How often the answers waiting are looked at while a call waits for room (responses tell no progress of their own). */
const LOOK_MS = 50;

/** Requests answered at once by default (--max-requests): many clients each with a few calls in flight. */
export const DEFAULT_MAX_REQUESTS = 256;

/** What the bodies of the requests being answered may weigh together: as the stdio server's unanswered requests. */
export const MAX_BODIES_BYTES = 64 * 1024 * 1024;

/**
 * A request taken on: it counts against --max-requests, and the body bytes it holds against the bodies' bound, until
 * its response closes and whatever it was held for (holdUntil) has settled.
 */
export interface Ticket {
  /** Counts `bytes` more of this request's body; false (nothing counted) when the bodies held would pass the bound. */
  hold(bytes: number): boolean;
  /**
   * Holds the request until `work` settles too: a session's call goes on once its client's connection is gone (a
   * disconnect is no cancellation), holding its arguments and a place behind limits.concurrency.
   */
  holdUntil(work: Promise<unknown>): void;
}

export class Load implements AnswerRoom {
  private requests = 0;
  private bodies = 0;
  /** The open responses, with what each had not sent at the last look and when that last went down. */
  private readonly open = new Map<ServerResponse, { left: number; since: number }>();

  constructor(
    readonly maxRequests = DEFAULT_MAX_REQUESTS,
    readonly maxBodies = MAX_BODIES_BYTES,
    readonly maxBacklog = MAX_BACKLOG_BYTES,
    readonly stallMs = STALL_MS,
  ) {}

  /** Why a request cannot be taken on now, or its ticket, held until `res` closes. */
  admit(res: ServerResponse): Ticket | string {
    if (this.requests >= this.maxRequests) {
      return `Server busy: ${this.requests} requests are being answered, the most this server takes at once (--max-requests); retry shortly`;
    }
    this.requests++;
    this.open.set(res, { left: 0, since: monotonicMs() });
    let held = 0;
    // What the request waits on before it is let go: its response's close, and each work it is held until.
    let holding = 1;
    const letGo = () => {
      if (--holding > 0) return;
      this.requests--;
      this.bodies -= held;
    };
    res.once("close", () => {
      this.open.delete(res);
      letGo();
    });
    return {
      hold: (bytes) => {
        if (this.bodies + bytes > this.maxBodies) return false;
        held += bytes;
        this.bodies += bytes;
        return true;
      },
      holdUntil: (work) => {
        holding++;
        void work.then(letGo, letGo);
      },
    };
  }

  /**
   * The answers not yet taken, in bytes (each response's own and its socket's). Past the bound, an answer whose client
   * has taken nothing of it for stallMs is dropped (its connection closed): a client that never reads cannot hold the
   * room, and with it every other client's calls, for ever.
   */
  private backlog(): number {
    const now = monotonicMs();
    let total = 0;
    for (const [res, seen] of this.open) {
      const left = res.destroyed ? 0 : res.writableLength;
      // Progress, or an answer begun since the last look: its client has had no time to take it yet.
      if (left === 0 || seen.left === 0 || left < seen.left) seen.since = now;
      seen.left = left;
      total += left;
    }
    if (total <= this.maxBacklog) return total;
    for (const [res, seen] of this.open) {
      if (seen.left > 0 && now - seen.since >= this.stallMs) {
        total -= seen.left;
        res.destroy();
      }
    }
    return total;
  }

  room(signal?: AbortSignal): Promise<void> {
    if (this.backlog() <= this.maxBacklog) return Promise.resolve();
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise((resolve, reject) => {
      const timer = setInterval(() => {
        if (this.backlog() > this.maxBacklog) return;
        done();
        resolve();
      }, LOOK_MS);
      const onAbort = () => {
        done();
        reject(cancelled());
      };
      const done = () => {
        clearInterval(timer);
        signal?.removeEventListener("abort", onAbort);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  gate(slots: Limiter): Limiter {
    return new GatedSlots(slots, this);
  }

  busyBodies(): string {
    return `Server busy: the requests being answered hold ${this.bodies} bytes of bodies, the most this server holds; retry shortly`;
  }
}
