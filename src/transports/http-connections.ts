// The connections `hcp serve --mcp --http` keeps open. Node keeps a connection that sends nothing, or half a request's
// headers, open for ever, and each holds a file descriptor: whoever can reach the port, token or none, could hold them
// all, and then hcp could neither start a verb's program (its pipes) nor read /proc to find what the program started.
// So a connection must send a request's headers within a deadline of opening (or of its last answer), and no more
// connections are taken than a share of the descriptors the process may open, of which at most half may be waiting.
// A request must then arrive whole within a deadline too (SERVER_DEADLINES), its body a byte at a time or not.

import { readFileSync } from "node:fs";
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** How long a connection may take to send a request's headers, from its opening or its last answer. */
export const HEADERS_DEADLINE_MS = 10_000;
/**
 * How long a request may take to arrive whole, body included (at most 4 MiB: 140 KB/s), from its first byte: a body
 * sent a byte at a time held its place among `--max-requests` for Node's default, 300 s. Node answers 408 and closes.
 */
export const REQUEST_DEADLINE_MS = 30_000;

/**
 * The options of Node's server for these deadlines: its own check of them runs every second, not every 30 s, so that a
 * deadline is kept within a second; its own headers deadline is ours (it must not pass the request's). hcp's timer for
 * the headers (boundConnections) stays: it keeps the deadline to the millisecond, and the waiting connections it
 * tracks are the ones it closes for a new one past half the bound.
 */
export const SERVER_DEADLINES = { requestTimeout: REQUEST_DEADLINE_MS, headersTimeout: HEADERS_DEADLINE_MS, connectionsCheckingInterval: 1_000 } as const;
/** The most connections open at once, at most a quarter of the file descriptors the process may open. */
const MAX_CONNECTIONS = 1024;

/** The soft limit on open files (`Max open files` of /proc/self/limits, which Node raised to the hard limit); undefined where unknown. */
export function openFilesLimit(): number | undefined {
  try {
    const line = readFileSync("/proc/self/limits", "utf8").split("\n").find((l) => l.startsWith("Max open files"));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isSafeInteger(soft) && soft > 0 ? soft : undefined;
  } catch {
    return undefined;
  }
}

/** The connections taken at once: MAX_CONNECTIONS, or a quarter of the open files limit when that is lower. */
export function connectionsBound(limit: number | undefined): number {
  return limit === undefined ? MAX_CONNECTIONS : Math.max(16, Math.min(MAX_CONNECTIONS, Math.floor(limit / 4)));
}

/** Per connection: its requests not yet answered, and the deadline for its next request's headers while it has none. */
interface Waiting {
  requests: number;
  deadline?: NodeJS.Timeout;
}

/**
 * Bounds the server's connections: how many are open (`maxConnections`: more are closed as Node takes them), how long
 * each may send no request, and how many may wait for one at once (half the bound): past that, the one waiting longest
 * is closed for the new one, so that connections made only to wait cannot keep a client out, who sends its request as
 * soon as it connects.
 */
export function boundConnections(http: Server): void {
  const bound = connectionsBound(openFilesLimit());
  http.maxConnections = bound;
  const states = new WeakMap<Socket, Waiting>();
  // The connections waiting for a request's headers, longest waiting first (a Set keeps the order of insertion).
  const idle = new Set<Socket>();
  const awaitHeaders = (socket: Socket, state: Waiting) => {
    idle.add(socket);
    state.deadline = setTimeout(() => socket.destroy(), HEADERS_DEADLINE_MS).unref();
  };
  http.on("connection", (socket: Socket) => {
    const longest = idle.size >= bound / 2 ? idle.values().next().value : undefined;
    if (longest !== undefined) {
      idle.delete(longest);
      longest.destroy();
    }
    const state: Waiting = { requests: 0 };
    states.set(socket, state);
    awaitHeaders(socket, state);
    socket.once("close", () => {
      idle.delete(socket);
      clearTimeout(state.deadline);
    });
  });
  http.on("request", (req, res) => {
    const state = states.get(req.socket);
    if (state === undefined) return;
    state.requests++;
    idle.delete(req.socket);
    clearTimeout(state.deadline);
    res.once("close", () => {
      if (--state.requests === 0 && !req.socket.destroyed) awaitHeaders(req.socket, state);
    });
  });
}
