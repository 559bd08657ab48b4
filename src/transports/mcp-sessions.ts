// The sessions of `hcp serve --mcp --http --stateful`: one SDK Server and Streamable HTTP transport per session, found
// by its Mcp-Session-Id. A session ends on DELETE, after a while with no request and nothing open, and at shutdown;
// its calls are then cancelled. At most `max` are open at once, so clients cannot grow the server without bound.

import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isObject } from "../pack/issues.js";
import { DUPLICATE_ID_REFUSED } from "./mcp-jsonrpc.js";
import { REFUSAL_CODES, badMessage, refuse } from "./mcp-refusal.js";
import type { Ticket } from "./http-load.js";

export interface SessionLimits {
  /** Sessions open at once; an initialize past it is refused (503). */
  max: number;
  /** A session with no request and no open response for this long ends. */
  idleMs: number;
}

interface Session {
  id: string;
  transport: StreamableHTTPServerTransport;
  /** Aborted when the session ends: its calls are cancelled, its elicitations dropped. */
  end: AbortController;
  /** HTTP responses open on it (calls in flight, the client's GET stream): it is idle only when there are none. */
  open: number;
  /**
   * Its requests still unanswered, by id (`typeof:value`): the SDK would answer the first on the second's stream. Each
   * with what it waits on (its response's close, the call that answers it) and its place in the server's load.
   */
  unanswered: Map<string, { waits: number; ticket: Ticket | undefined }>;
  idle?: NodeJS.Timeout;
}

/** What the sessions need from the door: a new transport, a server connected to one. */
export interface SessionDeps {
  isInitialize: (body: unknown) => boolean;
  transportFor: (id: string) => StreamableHTTPServerTransport;
  /**
   * Connects a new server (with its own declined plans) to the transport; `ended` aborts when the session ends, and
   * `onCall` is told of each tools/call as it starts.
   */
  connect: (transport: StreamableHTTPServerTransport, ended: AbortSignal, onCall: (requestId: string | number, task: Promise<unknown>) => void) => Promise<void>;
}

export class McpSessions {
  private readonly sessions = new Map<string, Session>();

  constructor(
    private readonly limits: SessionLimits,
    private readonly deps: SessionDeps,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  /** Answers a request of an open session, or opens one for an initialize request; `ticket` is its place in the server's load. */
  async answer(req: IncomingMessage, res: ServerResponse, body: unknown, ticket?: Ticket): Promise<void> {
    const id = req.headers["mcp-session-id"];
    if (typeof id !== "string" || id === "") {
      if (req.method === "POST" && this.deps.isInitialize(body)) return this.open(req, res, body);
      return refuse(res, 400, "bad request: send Mcp-Session-Id (this server keeps sessions: initialize one first)");
    }
    const s = this.sessions.get(id);
    // The SDK's own answer to an id it does not know: the client starts a new session (it ended: DELETE, idle, restart).
    if (s === undefined) return refuse(res, 404, "Session not found", { code: REFUSAL_CODES.sessionNotFound });
    // Two requests under one id: the SDK would answer the first on the second's response, the first's never ending (a
    // --max-requests slot held for good), or, the first's connection gone while its call goes on, the second with the
    // first's result. Refused as on stdio, until the first is answered.
    const requestId = isObject(body) && "method" in body && (typeof body["id"] === "string" || typeof body["id"] === "number") ? body["id"] : undefined;
    // Gone while its body was read: nothing would take the answer, and its close, passed, would never free the id.
    if (res.destroyed) return;
    if (requestId !== undefined) {
      const key = idKey(requestId);
      if (s.unanswered.has(key)) return badMessage(res, -32600, DUPLICATE_ID_REFUSED, requestId);
      s.unanswered.set(key, { waits: 1, ticket });
      res.once("close", () => settled(s, key));
    }
    this.track(s, res);
    await s.transport.handleRequest(req, res, body);
  }

  /** Ends every session (at shutdown): their streams close, their calls are cancelled. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((s) => this.close(s)));
  }

  private async open(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (this.sessions.size >= this.limits.max) {
      return refuse(res, 503, `too many open sessions (${this.limits.max}, --max-sessions): end one with DELETE, or retry once an idle one has closed`, { headers: { "retry-after": "30" } });
    }
    // The id is chosen here so that the session counts against the limit while it initializes.
    const id = randomUUID();
    const transport = this.deps.transportFor(id);
    const s: Session = { id, transport, end: new AbortController(), open: 0, unanswered: new Map() };
    this.sessions.set(id, s);
    // Set before the server connects: the SDK's Protocol calls it, then its own, when the transport closes (DELETE too).
    // oxlint-disable-next-line unicorn/prefer-add-event-listener
    transport.onclose = () => this.forget(s);
    try {
      await this.deps.connect(transport, s.end.signal, (requestId, task) => called(s, requestId, task));
      this.track(s, res);
      await transport.handleRequest(req, res, body);
    } finally {
      // The SDK refused the initialize (the id was never handed out): nothing can use this session.
      if (transport.sessionId === undefined) await this.close(s);
    }
  }

  /** Counts the response as open on the session; once none is, the idle clock runs. */
  private track(s: Session, res: ServerResponse): void {
    s.open++;
    clearTimeout(s.idle);
    res.once("close", () => {
      if (--s.open > 0 || this.sessions.get(s.id) !== s) return;
      s.idle = setTimeout(() => void this.close(s), this.limits.idleMs);
      s.idle.unref();
    });
  }

  private forget(s: Session): void {
    if (this.sessions.get(s.id) !== s) return;
    this.sessions.delete(s.id);
    clearTimeout(s.idle);
    s.end.abort();
  }

  private async close(s: Session): Promise<void> {
    this.forget(s);
    await s.transport.close();
  }
}

const idKey = (requestId: string | number) => `${typeof requestId}:${requestId}`;

/**
 * The session's server started the call that answers request `requestId`: its id stays taken, and the request its
 * place in the server's load, until the call settles, even once its client's connection is gone (the call goes on: a
 * disconnect is no cancellation, and hcp keeps no stream to resume).
 */
function called(s: Session, requestId: string | number, task: Promise<unknown>): void {
  const key = idKey(requestId);
  const request = s.unanswered.get(key);
  if (request === undefined) return;
  request.waits++;
  request.ticket?.holdUntil(task);
  void task.then(
    () => settled(s, key),
    () => settled(s, key),
  );
}

/** One thing the request under `key` waited on is done; once none is left, its id serves again. */
function settled(s: Session, key: string): void {
  const request = s.unanswered.get(key);
  if (request !== undefined && --request.waits === 0) s.unanswered.delete(key);
}
