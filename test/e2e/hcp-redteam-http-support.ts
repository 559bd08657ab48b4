// A hostile API for the HTTP red-team tests: it records every request exactly as received (target still
// percent-encoded, every header, every connection), echoes the credentials back wherever a server might
// (JSON, text, an error, a Location, WWW-Authenticate, a body cut at the cap), redirects wherever it is told,
// and misbehaves on purpose (bombs, trickles, loops). An openapi pack around its document, and its credentials.

import { readFileSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { constants, createGzip } from "node:zlib";
import { fixture } from "./helpers.js";
import type { Recorded } from "./notes-api.js";
import { isolatedEnv, openapiPack } from "./openapi-support.js";

export const TOKEN = "tok-Zt8Wq3Lr-bearer-secret";
export const USER = "rt-user";
export const PASSWORD = "Pw-9hKd2Xq-basic-secret";
export const BASIC = `${USER}:${PASSWORD}`;
export const QUERY_KEY = "qk/9Lm+2w&x=y Ab";
export const HEADER_KEY = "hk-Vb6Pn1Qs-header-secret";
export const COOKIE_KEY = "ck-Rj4Tt7Ye;path=/";

/** Every form a credential takes on the wire or in an echo: none may appear in any output. */
export const SECRET_FORMS = [
  TOKEN,
  BASIC,
  PASSWORD,
  Buffer.from(BASIC).toString("base64"),
  QUERY_KEY,
  encodeURIComponent(QUERY_KEY),
  new URLSearchParams({ k: QUERY_KEY }).toString().slice(2),
  // The request URL (which holds the query key) written into another URL: `/login?next=…`.
  encodeURIComponent(new URLSearchParams({ k: QUERY_KEY }).toString().slice(2)),
  encodeURIComponent(encodeURIComponent(QUERY_KEY)),
  HEADER_KEY,
  COOKIE_KEY,
  encodeURIComponent(COOKIE_KEY),
];

/** The first secret form found in a text, or undefined. */
export function leakIn(text: string): string | undefined {
  return SECRET_FORMS.find((form) => text.includes(form));
}

export const CREDENTIALS = { notes: { openapi: { bearer: TOKEN, basic: BASIC, keyQuery: QUERY_KEY, keyHeader: HEADER_KEY, keyCookie: COOKIE_KEY } } };

const str = { type: "string" };
const q = (name: string, schema: object = str) => ({ name, in: "query", schema });
const h = (name: string) => ({ name, in: "header", schema: str });
const echo = { "200": { description: "What the server received." } };
/** Headers a careless document declares as parameters; none may become an argument. */
export const OWNED_HEADERS = [
  "Authorization",
  "Cookie",
  "Proxy-Authorization",
  "Connection",
  "Transfer-Encoding",
  "Content-Length",
  "Host",
  "X-Original-URL",
  "X-Rewrite-URL",
  // Where a server behind a proxy believes the request came to: its links and redirects follow them.
  "X-Forwarded-Host",
  "Forwarded",
  "X-Forwarded-Proto",
  "X-Forwarded-Prefix",
  "X-Forwarded-Port",
  "X-Forwarded-Server",
  "X-Host",
];
export const METHOD_OVERRIDES = ["X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"];
/** Every credential at once: bearer header, API key header, query and cookie. */
const ALL = [{ bearer: [], keyHeader: [], keyQuery: [], keyCookie: [] }];

/** The hostile API's document (OpenAPI 3.1): each operation is one way a server can misbehave. */
export const DOC = {
  openapi: "3.1.0",
  info: { title: "Hostile", version: "1" },
  servers: [{ url: "http://127.0.0.1:9/v1" }],
  security: ALL,
  paths: {
    "/items/{id}": {
      parameters: [{ name: "id", in: "path", required: true, schema: str }],
      get: { operationId: "item.get", parameters: [q("q"), h("X-Trace")], responses: echo },
      delete: { operationId: "item.delete", responses: echo },
    },
    "/items": {
      post: {
        operationId: "item.create",
        requestBody: { required: true, content: { "application/json": { schema: { type: "object", properties: { text: str } } } } },
        responses: echo,
      },
    },
    "/echo": {
      get: {
        operationId: "echo",
        // How the server answers with what it received; and headers a careless document declares.
        parameters: [q("mode"), q("q"), h("X-Trace"), ...[...OWNED_HEADERS, ...METHOD_OVERRIDES].map(h)],
        responses: echo,
      },
    },
    "/basic": { get: { operationId: "basic", security: [{ basic: [] }], parameters: [q("mode")], responses: echo } },
    // A document that declares the API key as a parameter too, as many do.
    "/keyed": { get: { operationId: "keyed", security: [{ keyQuery: [], keyHeader: [] }], parameters: [q("api_key"), h("X-API-Key")], responses: echo } },
    // An open redirect on the API's own origin: the agent names the status and the target.
    "/redirect": { get: { operationId: "redirect", parameters: [q("status"), q("to")], responses: { "302": { description: "Elsewhere." } } } },
    "/loop": { get: { operationId: "loop", parameters: [q("n")], responses: echo } },
    "/bomb": { get: { operationId: "bomb", parameters: [q("codings")], responses: echo } },
    "/endless-gzip": { get: { operationId: "endless-gzip", responses: echo } },
    "/slow-head": { get: { operationId: "slow-head", responses: echo } },
    "/slow-body": { get: { operationId: "slow-body", responses: echo } },
    "/huge-head": { get: { operationId: "huge-head", responses: echo } },
    "/bad-gzip": { get: { operationId: "bad-gzip", responses: echo } },
    "/deep": { get: { operationId: "deep", parameters: [q("depth"), q("type")], responses: echo } },
  },
  components: {
    securitySchemes: {
      bearer: { type: "http", scheme: "bearer" },
      basic: { type: "http", scheme: "basic" },
      keyQuery: { type: "apiKey", in: "query", name: "api_key" },
      keyHeader: { type: "apiKey", in: "header", name: "X-API-Key" },
      keyCookie: { type: "apiKey", in: "cookie", name: "sid" },
    },
  },
};

/** Every operation as a verb, bound by operationId. */
export const VERBS = Object.fromEntries(
  Object.values(DOC.paths).flatMap((item) =>
    Object.values(item)
      .filter((op): op is { operationId: string } => typeof op === "object" && op !== null && "operationId" in op)
      .map((op) => [op.operationId, { description: `The ${op.operationId} operation.` }]),
  ),
);

/** A pack (id `notes`, family `notes`) serving DOC against `origin`; `policy` is merged into policy.json. */
export function hostilePack(origin: string, policy: Record<string, unknown> = {}): string {
  const dir = openapiPack({ ref: { path: "api.json" }, verbs: VERBS, policy: { openapi: { base_url: `${origin}/v1` }, ...policy } });
  writeFileSync(`${dir}/api.json`, JSON.stringify(DOC, null, 2));
  return dir;
}

/** An isolated environment whose credential file holds CREDENTIALS (or `credentials`). */
export const hostileEnv = (credentials: unknown = CREDENTIALS, extra: NodeJS.ProcessEnv = {}) => ({ ...isolatedEnv(credentials), ...extra });

export interface Hostile {
  origin: string;
  requests: Recorded[];
  /** TCP connections accepted, whatever came over them (a plaintext request to the TLS port included). */
  connections: number;
  /** TLS handshakes that failed (a plaintext client on the TLS port, a client refusing the certificate). */
  tlsErrors: number;
  close(): Promise<void>;
}

export const TLS_CERT = fixture("tls/loopback.crt");
const TLS = () => ({ cert: readFileSync(TLS_CERT), key: readFileSync(fixture("tls/loopback.key")) });

/** What the server received, as text a server might print: the request line, then each header. */
const asText = (r: Recorded) => [`${r.method} ${r.url}`, ...Object.entries(r.headers).map(([k, v]) => `${k}: ${String(v)}`), "", r.body].join("\n");

/** Starts the hostile API on loopback (https with the test certificate when `tls`). */
export async function hostileApi(opts: { tls?: boolean } = {}): Promise<Hostile> {
  const state = { requests: [] as Recorded[], connections: 0, tlsErrors: 0 };
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const got: Recorded = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      state.requests.push(got);
      answer(got, res);
    });
  };
  const server: Server = opts.tls ? createHttpsServer(TLS(), handler) : createHttpServer(handler);
  server.on("connection", () => state.connections++);
  server.on("tlsClientError", () => state.tlsErrors++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `${opts.tls ? "https" : "http"}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    get requests() {
      return state.requests;
    },
    get connections() {
      return state.connections;
    },
    get tlsErrors() {
      return state.tlsErrors;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answer(got: Recorded, res: ServerResponse): void {
  const url = new URL(got.url, "http://x");
  const param = (name: string) => url.searchParams.get(name) ?? "";
  const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(JSON.stringify(value));
  };
  const token = String(got.headers.authorization ?? "").replace(/^\w+ /, "");
  // A server that checks basic credentials may well quote the password it decoded.
  const password = String(got.headers.authorization).startsWith("Basic ") ? Buffer.from(token, "base64").toString("utf8").split(":")[1] : undefined;
  switch (url.pathname) {
    case "/v1/redirect":
      res.writeHead(Number(param("status")), { location: param("to") });
      return void res.end();
    case "/v1/loop":
      res.writeHead(302, { location: `/v1/loop?n=${Number(param("n")) + 1}` });
      return void res.end();
    case "/v1/bomb":
      return bomb(res, param("codings"));
    case "/v1/endless-gzip":
      return endlessGzip(res);
    case "/v1/slow-head":
      return trickle(res, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Slow: ", "a");
    case "/v1/slow-body":
      res.writeHead(200, { "content-type": "text/plain" });
      return trickle(res, `${TOKEN}\n`, "b");
    case "/v1/huge-head":
      // One header of 1 MiB: over any client's limit for a response head.
      res.writeHead(200, { "content-type": "text/plain", "x-huge": "h".repeat(1 << 20) });
      return void res.end("ok");
    case "/v1/deep": {
      // Arrays nested `depth` levels: 2 bytes a level.
      const depth = Number(param("depth"));
      res.writeHead(200, { "content-type": param("type") || "application/json" });
      return void res.end("[".repeat(depth) + "]".repeat(depth));
    }
    case "/v1/bad-gzip":
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
      return void res.end(`not gzip at all, but the token: ${token}`);
  }
  // Every other path echoes the request, in the way `mode` says.
  switch (param("mode")) {
    case "text":
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.end(asText(got));
    case "error":
      return json(500, { error: `boom${password === undefined ? "" : `: wrong password ${password}`}`, received: got });
    case "location":
      // 300 is not a redirect anyone follows: the Location comes back to the caller as is.
      res.writeHead(300, { location: `/v1/seen?auth=${encodeURIComponent(String(got.headers.authorization))}&target=${encodeURIComponent(got.url)}` });
      return void res.end();
    case "login":
      // Sends the caller to log in, and back to where it was: the whole request URL, encoded once more.
      return json(401, { login: `/login?next=${encodeURIComponent(got.url)}` }, { location: `/login?next=${encodeURIComponent(got.url)}` });
    case "www":
      return json(401, { error: "unauthorized" }, { "www-authenticate": `Bearer realm="${String(got.headers.authorization)}", error_description="${got.url}"` });
    case "raw":
      // Declares JSON and sends the token itself: the parser's complaint would quote its first characters.
      res.writeHead(200, { "content-type": "application/json" });
      return void res.end(token);
    case "cut": {
      // The token straddles the cap (4096 bytes in the tests): the kept part would end with its beginning.
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.end("x".repeat(4096 - 12) + token + "y".repeat(5000));
    }
    case "stall":
      // The echo, then nothing: only the deadline ends it, mid-body.
      res.writeHead(200, { "content-type": "text/plain" });
      return void res.write(asText(got));
    default:
      return json(200, { ...got, password });
  }
}

/**
 * 2 GiB of `a` gzip-compressed as the answer streams (backpressure bounds the server), `codings` times in the
 * header; at most two layers are real (a client must refuse a long chain before decoding any of it).
 */
function bomb(res: ServerResponse, codings: string): void {
  const layers = codings === "" ? 1 : Number(codings);
  res.writeHead(200, { "content-type": "text/plain", "content-encoding": Array(layers).fill("gzip").join(", ") });
  const first = createGzip({ level: constants.Z_BEST_SPEED });
  const last = layers >= 2 ? first.pipe(createGzip({ level: constants.Z_BEST_SPEED })) : first;
  last.pipe(res);
  const chunk = Buffer.alloc(1 << 20, "a");
  let left = 2048;
  const pump = () => {
    while (left > 0 && !res.destroyed) {
      left--;
      if (!first.write(chunk)) return void first.once("drain", pump);
    }
    if (!res.destroyed) first.end();
  };
  res.on("close", () => first.destroy());
  pump();
}

/** A gzip body that never ends: the same compressed block of `a`s, forever. */
function endlessGzip(res: ServerResponse): void {
  res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" });
  const gzip = createGzip({ level: constants.Z_BEST_SPEED });
  gzip.pipe(res);
  const chunk = Buffer.alloc(1 << 20, "a");
  const pump = () => {
    while (!res.destroyed) if (!gzip.write(chunk)) return void gzip.once("drain", pump);
  };
  res.on("close", () => gzip.destroy());
  pump();
}

/** Writes `start` (raw on the socket when it is a status line), then one byte every 100 ms until the client leaves. */
function trickle(res: ServerResponse, start: string, byte: string): void {
  const raw = start.startsWith("HTTP/");
  const write = (s: string) => (raw ? res.socket?.write(s) : res.write(s));
  write(start);
  const timer = setInterval(() => (res.socket?.destroyed ? clearInterval(timer) : write(byte)), 100);
  res.on("close", () => clearInterval(timer));
  res.socket?.on("close", () => clearInterval(timer));
}
