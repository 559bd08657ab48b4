// What `hcp serve --mcp --http` takes on at once: the requests it is answering, and the request bodies they hold.
// Past either bound a request is refused at once (503 with Retry-After) rather than queued: each request held costs
// memory (its body, its answer) and would only wait behind limits.concurrency, while a client told to retry can wait
// on its side, or go to another instance behind a load balancer.

import type { ServerResponse } from "node:http";

/** Requests answered at once by default (--max-requests): many clients each with a few calls in flight. */
export const DEFAULT_MAX_REQUESTS = 256;

/** What the bodies of the requests being answered may weigh together: as the stdio server's unanswered requests. */
export const MAX_BODIES_BYTES = 64 * 1024 * 1024;

/** A request taken on: the body bytes it holds count against the server's bound until its response closes. */
export interface Ticket {
  /** Counts `bytes` more of this request's body; false (nothing counted) when the bodies held would pass the bound. */
  hold(bytes: number): boolean;
}

export class Load {
  private requests = 0;
  private bodies = 0;

  constructor(
    readonly maxRequests = DEFAULT_MAX_REQUESTS,
    readonly maxBodies = MAX_BODIES_BYTES,
  ) {}

  /** Why a request cannot be taken on now, or its ticket, held until `res` closes. */
  admit(res: ServerResponse): Ticket | string {
    if (this.requests >= this.maxRequests) {
      return `Server busy: ${this.requests} requests are being answered, the most this server takes at once (--max-requests); retry shortly`;
    }
    this.requests++;
    let held = 0;
    res.once("close", () => {
      this.requests--;
      this.bodies -= held;
    });
    return {
      hold: (bytes) => {
        if (this.bodies + bytes > this.maxBodies) return false;
        held += bytes;
        this.bodies += bytes;
        return true;
      },
    };
  }

  busyBodies(): string {
    return `Server busy: the requests being answered hold ${this.bodies} bytes of bodies, the most this server holds; retry shortly`;
  }
}
