// The `--http` transport of `hcp serve --mcp`: Streamable HTTP at /mcp on node:http, through the SDK's
// StreamableHTTPServerTransport. Stateless by default: every request gets a fresh Server (the same one the stdio
// transport runs) and transport, so any instance behind a load balancer can answer any request. `--stateful` keeps
// sessions instead (mcp-sessions.ts), which elicitation needs. This module only adapts: it guards the door (bearer
// token, the connections kept (http-connections.ts) and the load taken on (http-load.ts), Host and Origin, body
// size), hands each call the client's address for the audit log, and stops cleanly.

import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { isIPv6 } from "node:net";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { isObject } from "../pack/issues.js";
import { ApprovalSession } from "../runtime/approval/gate.js";
import { TransportError, jsonSyntax } from "./errors.js";
import { CLIENT_ADDRESS, loadSdk, mcpServer, servedOf, servedSecrets, warmUp, type McpOptions, type ServerLife } from "./mcp.js";
import { sdkStreamableHttpModule } from "./lazy-sdk.js";
import { maskResponses } from "./mcp-http-mask.js";
import { BATCH_REFUSED } from "./mcp-jsonrpc.js";
import { REFUSAL_CODES, badMessage, refuse } from "./mcp-refusal.js";
import { McpSessions, type SessionLimits } from "./mcp-sessions.js";
import { Load, type Ticket } from "./http-load.js";
import { boundConnections, SERVER_DEADLINES } from "./http-connections.js";
import type { ServedPack } from "./packs.js";
import { systemReason } from "../errno.js";
import { KILL_GRACE_MS } from "../runtime/process/process.js";

/** The largest request body read; a longer one is refused with 413. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** A refusal for load: the client may retry in a second (the calls ahead of it take about that long or more). */
const BUSY_HEADERS = { "retry-after": "1" };
/**
 * How long a stop waits for the answers in flight before closing every connection: past the kill grace, so that a call
 * whose program ignores SIGTERM is answered (cancelled, once SIGKILLed) before its connection closes, as on stdio.
 */
const DRAIN_MS = KILL_GRACE_MS + 1000;
export const MCP_PATH = "/mcp";

export interface Listen {
  host: string;
  port: number;
}

/** `[HOST:]PORT` (an IPv6 host in brackets): where to listen; 127.0.0.1 when no host is given. */
export function parseListen(spec: string): Listen {
  const m = /^(?:(\[[0-9A-Fa-f:.]+\]|[^:[\]]+):)?(\d{1,5})$/.exec(spec);
  const port = m === null ? Number.NaN : Number(m[2]);
  if (m === null || port > 65535) {
    throw new TransportError("usage", `--http takes [HOST:]PORT (PORT from 0 to 65535, an IPv6 host in brackets), got ${JSON.stringify(spec)}`);
  }
  return { host: m[1]?.replace(/^\[|\]$/g, "") ?? "127.0.0.1", port };
}

/** Names that reach this machine only. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export interface HttpOptions extends McpOptions, Listen {
  /** The bearer token every request must carry; none on loopback only (the caller refuses otherwise). */
  token?: string;
  /** Keep sessions (`--stateful`), with these limits; stateless when absent. */
  sessions?: SessionLimits;
  /** Requests answered at once (`--max-requests`); DEFAULT_MAX_REQUESTS when absent. */
  maxRequests?: number;
  /** More names the Host and Origin headers may carry (`--allow-host`), as parseAllowHost gives them. */
  allowHosts?: readonly AllowedHost[];
  /** Told the URL once the port is bound. */
  onListening: (url: string) => void;
}

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

/** Compares the request's bearer token with the expected one in constant time (equal-length digests). */
function authorized(req: IncomingMessage, token: string): boolean {
  const m = /^Bearer +(\S+) *$/i.exec(req.headers.authorization ?? "");
  return m !== null && timingSafeEqual(digest(m[1]!), digest(token));
}

/**
 * The request body; "too large" when it is longer than MAX_BODY_BYTES, "busy" when holding it would pass the bodies
 * the server holds at once (nothing more is read then). A declared length is counted whole before anything is read.
 */
async function readBody(req: IncomingMessage, ticket: Ticket): Promise<Buffer | "too large" | "busy"> {
  const declared = Number(req.headers["content-length"] ?? 0);
  if (declared > MAX_BODY_BYTES) return "too large";
  if (!ticket.hold(declared)) return "busy";
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return "too large";
    // A body without a declared length (chunked) is counted as it comes.
    if (size > declared && !ticket.hold(Math.min(chunk.length, size - declared))) return "busy";
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** A name `--allow-host` adds: a host name or address, with the one port it goes with, or with any (undefined). */
export interface AllowedHost {
  name: string;
  port?: number;
}

/** `NAME` or `NAME:PORT` (an IPv6 address in brackets) of `--allow-host`, lower-cased; a usage error otherwise. */
export function parseAllowHost(spec: string): AllowedHost {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(?::(\d{1,5}))?$/.exec(spec);
  const port = m?.[2] === undefined ? undefined : Number(m[2]);
  if (m === null || (port !== undefined && (port < 1 || port > 65535)) || (m[1]!.startsWith("[") && !isIPv6(m[1]!.slice(1, -1)))) {
    throw new TransportError("usage", `--allow-host takes NAME or NAME:PORT (a host name, an IPv4 address, or an IPv6 address in brackets; PORT from 1 to 65535), got ${JSON.stringify(spec)}`);
  }
  return { name: m[1]!.toLowerCase(), ...(port === undefined ? {} : { port }) };
}

/**
 * Host and Origin values a request may carry: the loopback names and the bound host, with the bound port; each
 * `--allow-host` name with its own port, or (none given) with the bound port and bare, as a proxy or a browser sends
 * it for a default port.
 */
function allowList(host: string, port: number, more: readonly AllowedHost[] = []): { hosts: string[]; origins: string[] } {
  const names = [...new Set(["127.0.0.1", "localhost", "[::1]", isIPv6(host) ? `[${host}]` : host])];
  const hosts = [...names.map((n) => `${n}:${port}`), ...more.flatMap((h) => (h.port === undefined ? [`${h.name}:${port}`, h.name] : [`${h.name}:${h.port}`]))];
  return { hosts, origins: hosts.flatMap((h) => [`http://${h}`, `https://${h}`]) };
}

/** Why the request's Host or Origin is refused (DNS rebinding), or undefined when both are allowed. Names are compared without case. */
function foreign(req: IncomingMessage, allowed: { hosts: string[]; origins: string[] }): string | undefined {
  const { host, origin } = req.headers;
  if (host === undefined || !allowed.hosts.includes(host.toLowerCase())) return `forbidden: Host ${JSON.stringify(host ?? "")} is not this server's`;
  if (origin !== undefined && !allowed.origins.includes(origin.toLowerCase())) return `forbidden: Origin ${JSON.stringify(origin)} is not this server's`;
  return undefined;
}

/** The client's address, `IP:port` (`[IPv6]:port`), as the connection shows it: a reverse proxy's own, behind one. */
function addressOf(req: IncomingMessage): string {
  const { remoteAddress: ip = "unknown", remotePort: port } = req.socket;
  return `${isIPv6(ip) ? `[${ip}]` : ip}:${port ?? 0}`;
}

/**
 * Serves until opts.signal aborts: then it stops accepting, cancels the calls in flight (their children's groups are
 * killed), answers them, ends every session, closes every connection and frees the port.
 */
export async function serveMcpHttp(packs: readonly ServedPack[], given: HttpOptions): Promise<void> {
  // The bearer token is a secret of the server: a verb that prints files can print the token file.
  const opts = { ...given, serverSecrets: given.token === undefined ? [] : [given.token] };
  const served = servedOf(packs, opts);
  const sdk = await loadSdk();
  const { StreamableHTTPServerTransport } = await sdkStreamableHttpModule();
  const stop = new AbortController();
  // The calls in flight (the stdio server waits on them; here each is answered on its own request).
  const running = new Set<Promise<unknown>>();
  const answering = new Set<Promise<void>>();
  let allowed = allowList(opts.host, opts.port, opts.allowHosts);
  const load = new Load(opts.maxRequests);
  const methods = opts.sessions === undefined ? ["POST"] : ["POST", "GET", "DELETE"];

  /** A server whose calls end with the process's stop (and `ended`); its declined plans are its own. */
  const serverFor = (ended?: AbortSignal, onCall?: ServerLife["onCall"]) => {
    const end = ended === undefined ? stop.signal : AbortSignal.any([stop.signal, ended]);
    return mcpServer(sdk, served, opts, { stop: end, unanswerable: end, running, declined: new ApprovalSession(), outbox: load, dropsLongAnswers: true, onCall });
  };
  const sessions =
    opts.sessions === undefined
      ? undefined
      : new McpSessions(opts.sessions, {
          isInitialize: (body) => sdk.isInitializeRequest(body),
          transportFor: (id) => new StreamableHTTPServerTransport({ sessionIdGenerator: () => id }),
          connect: (transport, ended, onCall) => serverFor(ended, onCall).connect(transport),
        });

  /** Stateless: a fresh server and transport answer this one request, and are closed with it. */
  async function answerAlone(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = serverFor();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on("close", () => {
      transport.close().catch(() => {});
      server.close().catch(() => {});
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (stop.signal.aborted) return refuse(res, 503, "the server is stopping", { headers: { connection: "close" } });
    // First: a client without the token learns nothing else (not the endpoint's path, nor whether sessions are kept).
    if (opts.token !== undefined && !authorized(req, opts.token)) {
      return refuse(res, 401, "unauthorized: send Authorization: Bearer <token>", { headers: { "www-authenticate": 'Bearer realm="hcp"' } });
    }
    // A session's GET stream is not counted: it lasts as long as its session, and --max-sessions bounds those.
    const ticket = req.method === "GET" ? undefined : load.admit(res);
    if (typeof ticket === "string") return refuse(res, 503, ticket, { headers: BUSY_HEADERS });
    if (new URL(req.url ?? "/", "http://x").pathname !== MCP_PATH) return refuse(res, 404, `not found: the MCP endpoint is ${MCP_PATH}`);
    // Stateless: no standalone stream (GET) and no session to end (DELETE); stateful: both.
    if (!methods.includes(req.method ?? "")) return refuse(res, 405, `method not allowed: this ${sessions ? "" : "stateless "}server takes ${methods.join(", ")}`, { headers: { allow: methods.join(", ") } });
    const rebound = foreign(req, allowed);
    if (rebound !== undefined) return refuse(res, 403, rebound);
    let parsed: unknown;
    if (req.method === "POST") {
      const body = await readBody(req, ticket!);
      if (body === "too large") return refuse(res, 413, `request body larger than ${MAX_BODY_BYTES} bytes`, { headers: { connection: "close" } });
      // Refused before its body was read (a declared length), the connection stays usable: Node reads the body and drops it.
      if (body === "busy") return refuse(res, 503, load.busyBodies(), { headers: req.headers["content-length"] === undefined ? { ...BUSY_HEADERS, connection: "close" } : BUSY_HEADERS });
      try {
        parsed = JSON.parse(body.toString("utf8"));
      } catch (e) {
        return badMessage(res, -32700, `Parse error: the body is not JSON: ${jsonSyntax(e)}`);
      }
      // A batch is refused as on stdio: the SDK's transport would take it, hcp answers one message at a time.
      if (Array.isArray(parsed)) return badMessage(res, -32600, BATCH_REFUSED);
      if (!sdk.isMessage(parsed)) {
        const id = isObject(parsed) && (typeof parsed["id"] === "string" || Number.isSafeInteger(parsed["id"])) ? parsed["id"] : undefined;
        return badMessage(res, -32600, "Invalid Request: not a valid JSON-RPC 2.0 message", id);
      }
    }
    // The SDK would quote an unknown version back in its refusal: the header is the caller's and may hold anything (§12).
    const version = req.headers["mcp-protocol-version"];
    if (typeof version === "string" && !sdk.supportedVersions.includes(version) && !sdk.isInitializeRequest(parsed)) {
      return refuse(res, 400, `Bad Request: unsupported MCP-Protocol-Version (supported versions: ${sdk.supportedVersions.join(", ")})`);
    }
    // The SDK hands `auth` to every handler of this request: the calls' audit lines carry the client's address.
    (req as IncomingMessage & { auth?: AuthInfo }).auth = { token: "", clientId: "", scopes: [], extra: { [CLIENT_ADDRESS]: addressOf(req) } };
    await (sessions === undefined ? answerAlone(req, res, parsed) : sessions.answer(req, res, parsed, ticket));
  }

  const http = createServer(SERVER_DEADLINES, (req, res) => {
    maskResponses(res, () => servedSecrets(packs, opts));
    const done = answer(req, res)
      .catch(() => refuse(res, 500, "internal error", { code: REFUSAL_CODES.internalError }))
      .then(() => (res.writableFinished ? undefined : new Promise<void>((resolve) => res.once("close", () => resolve()))));
    // A session's GET stream stays open until the session ends: it is not an answer to wait for.
    if (req.method === "GET") return;
    answering.add(done);
    void done.finally(() => answering.delete(done));
  });
  boundConnections(http);
  await new Promise<void>((resolve, reject) => {
    http.once("error", (err: NodeJS.ErrnoException) => reject(new TransportError("usage", `cannot listen on ${opts.host}:${opts.port}: ${systemReason(err)}`)));
    http.listen(opts.port, opts.host, () => resolve());
  });
  const { port } = http.address() as { port: number };
  allowed = allowList(opts.host, port, opts.allowHosts);
  opts.onListening(`http://${isIPv6(opts.host) ? `[${opts.host}]` : opts.host}:${port}${MCP_PATH}`);
  warmUp(served.tools, stop.signal);

  await new Promise<void>((resolve) => {
    if (opts.signal?.aborted) resolve();
    opts.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  // Stop accepting, cancel what runs, answer it, end the sessions (their GET streams), then close every connection.
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  stop.abort();
  http.closeIdleConnections();
  const drained = new Promise<void>((resolve) => setTimeout(resolve, DRAIN_MS).unref());
  await Promise.race([Promise.allSettled(answering), drained]);
  await sessions?.closeAll();
  http.closeAllConnections();
  await closed;
}
