// A real HTTP API on loopback for the openapi tests: the notes API of test/fixtures/openapi, recording every request.

import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  /** The request target exactly as received: path and query, still percent-encoded. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Api {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  requests: Recorded[];
  close(): Promise<void>;
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function closing(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

/** A server that only records what reaches it, body included, and answers `{}` (the target of a redirect; an API whose requests a test reads). */
export async function recorder(): Promise<Api> {
  const requests: Recorded[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  const origin = await listen(server);
  return { origin, requests, close: closing(server) };
}

/** The notes API. `elsewhere` is where /v1/away redirects (another origin). */
export async function notesApi(elsewhere = "http://127.0.0.1:9"): Promise<Api> {
  const requests: Recorded[] = [];
  const notes = new Map([["n1", { id: "n1", text: "first note" }]]);
  const server = createServer((req, res) => {
    const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(value));
    };
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      const url = new URL(req.url ?? "/", "http://x");
      const path = url.pathname;
      const route = `${req.method} ${path.replace(/^\/v1\/notes\/[^/]+$/, "/v1/notes/:id")}`;
      switch (route) {
        case "GET /v1/notes":
          // Paged as GitHub pages: the next page only in Link, with the rate limit left.
          return json(200, [...notes.values()].slice(0, Number(url.searchParams.get("limit") ?? 100)), { link: `<${origin}/v1/notes?page=2>; rel="next"`, "x-ratelimit-remaining": "4999", "x-unlisted": "dropped" });
        case "POST /v1/notes": {
          const made = { id: `n${notes.size + 1}`, ...(JSON.parse(body) as object) };
          notes.set(made.id, made as { id: string; text: string });
          return json(201, made);
        }
        case "GET /v1/notes/:id": {
          const id = decodeURIComponent(path.slice("/v1/notes/".length));
          const note = notes.get(id);
          return note ? json(200, note) : json(404, { error: `no note ${id}` });
        }
        case "DELETE /v1/notes/:id":
          notes.delete(decodeURIComponent(path.slice("/v1/notes/".length)));
          res.writeHead(204);
          return res.end();
        case "GET /v1/whoami":
        case "GET /v1/basic":
          if (req.headers.authorization === undefined) return json(401, { error: "who are you?" }, { "www-authenticate": "Bearer" });
          return json(200, { authorization: req.headers.authorization, token: req.headers.authorization.replace(/^\w+ /, "") });
        case "GET /v1/keyed":
          return json(200, { url: req.url });
        case "GET /v1/limited":
          return json(429, { error: "slow down" }, { "retry-after": "30" });
        case "GET /v1/bad-json":
          res.writeHead(200, { "content-type": "application/json" });
          return res.end("<html>not json</html>");
        case "GET /v1/big": {
          // Never ends on its own: only the client stopping reading ends it.
          res.writeHead(200, { "content-type": "text/plain" });
          const line = Buffer.alloc(16 * 1024, "x");
          const pump = () => {
            while (!res.destroyed && res.write(line));
            if (!res.destroyed) res.once("drain", pump);
          };
          res.on("close", () => res.removeAllListeners("drain"));
          return pump();
        }
        case "GET /v1/stall":
          // Headers and a first line, then nothing: only the client's deadline ends it.
          res.writeHead(200, { "content-type": "text/plain" });
          return res.write("partial\n");
        case "GET /v1/away":
          res.writeHead(302, { location: `${elsewhere}/stolen` });
          return res.end();
        case "GET /v1/here":
          res.writeHead(302, { location: "/v1/notes" });
          return res.end();
        default:
          return json(404, { error: `no route ${route}` });
      }
    });
  });
  const origin = await listen(server);
  return { origin, requests, close: closing(server) };
}
