// Shared by the hcp transport tests: the built program, fixture packs, an MCP client over stdio, exec sessions.

import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema, ListRootsRequestSchema, LoggingMessageNotificationSchema, type ElicitRequest, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { REPO, fixture, run, type Run } from "../e2e/helpers.js";
import { tempDir } from "../temp.js";

export const HCP = `${REPO}dist/bin/hcp.cjs`;
export const PROBE_PACK = fixture("packs/hcp-probe");
export const SECRET_PACK = fixture("packs/hcp-secret");
export const pack = (name: string) => fixture(`packs/${name}`);

export const hcp = (args: string[], options?: Parameters<typeof run>[2]): Promise<Run> => run(process.execPath, [HCP, ...args], options);

/** How to start `node hcp.cjs ARGS…`: as is, or under sh with at most `fileLimit` file descriptors (`ulimit -n`). */
export function hcpCommand(args: readonly string[], fileLimit?: number): { command: string; args: string[] } {
  if (fileLimit === undefined) return { command: process.execPath, args: [HCP, ...args] };
  return { command: "/bin/sh", args: ["-c", `ulimit -n ${fileLimit} && exec "$0" "$@"`, process.execPath, HCP, ...args] };
}

export { tempDir } from "../temp.js";

/** A 0600 credential file for the hcp-secret pack's family. */
export function credentialFile(secret: string, mode = 0o600): string {
  const file = join(tempDir("hcp-cred-"), "credentials.json");
  writeFileSync(file, JSON.stringify({ secretfam: { env: { SECRET_TOKEN: secret } } }));
  chmodSync(file, mode);
  return file;
}

export interface McpOptions {
  allowWrite?: boolean;
  /** More `hcp serve` flags. */
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Declares the elicitation capability and answers every elicitation/create with this (its message, and its params whole). */
  elicit?: (message: string, params: ElicitRequest["params"]) => ElicitResult | Promise<ElicitResult>;
  /** Gets the data of each notifications/message (the client's log), from the first one the server sends. */
  onLog?: (data: string) => void;
  /** Declares the roots capability and answers roots/list with these folders (as file: URIs), or those it returns when asked. */
  roots?: string[] | (() => string[]);
  /** The server's most file descriptors (`ulimit -n`). */
  fileLimit?: number;
}

/** An SDK Client connected over stdio to a freshly spawned `hcp serve --mcp`. */
export async function mcpClient(paths: string[], opts: McpOptions = {}): Promise<{ client: Client; stderr: () => string }> {
  const { command, args } = hcpCommand(["serve", "--mcp", ...paths, ...(opts.allowWrite ? ["--allow-write"] : []), ...(opts.args ?? [])], opts.fileLimit);
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: opts.cwd ?? REPO,
    env: (opts.env ?? process.env) as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const client = new Client({ name: "hcp-test", version: "1.0.0" }, { capabilities: { ...(opts.elicit && { elicitation: {} }), ...(opts.roots && { roots: { listChanged: true } }) } });
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params.message, req.params));
  }
  const { roots } = opts;
  if (roots) client.setRequestHandler(ListRootsRequestSchema, async () => ({ roots: (typeof roots === "function" ? roots() : roots).map((folder) => ({ uri: pathToFileURL(folder).href })) }));
  const onLog = opts.onLog;
  if (onLog) client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => onLog(String(n.params.data)));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

export interface HttpServed {
  url: string;
  child: ChildProcess;
  /** Everything hcp wrote on stderr so far. */
  stderr: () => string;
  exited: Promise<number | null>;
  /** SIGTERM, then its exit code. */
  stop: () => Promise<number | null>;
}

/** Spawns `hcp serve --mcp PATHS… --http 127.0.0.1:0 ARGS…` (or `--http LISTEN`) and reads the URL it prints on stderr. */
export async function serveHttp(paths: string[], opts: { args?: string[]; cwd?: string; env: NodeJS.ProcessEnv; listen?: string; fileLimit?: number }): Promise<HttpServed> {
  const { command, args } = hcpCommand(["serve", "--mcp", ...paths, "--http", opts.listen ?? "127.0.0.1:0", ...(opts.args ?? [])], opts.fileLimit);
  const child = spawn(command, args, { cwd: opts.cwd ?? REPO, env: opts.env, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  const url = await new Promise<string>((resolve, reject) => {
    // A hang guard far above any start-up time.
    const guard = setTimeout(() => reject(new Error(`no URL on stderr: ${stderr}`)), 60_000);
    child.stderr!.on("data", () => {
      const m = /serving MCP over HTTP at (http:\/\/\S+)/.exec(stderr);
      if (m === null) return;
      clearTimeout(guard);
      resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`hcp exited ${code}: ${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode === null) child.kill("SIGTERM");
    return exited;
  };
  return { url, child, stderr: () => stderr, exited, stop };
}

/** An SDK Client connected over Streamable HTTP (with a bearer token, answering elicitations when `elicit` is given). */
export async function httpClient(url: string, opts: { token?: string; elicit?: McpOptions["elicit"] } = {}): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const headers: Record<string, string> = opts.token === undefined ? {} : { authorization: `Bearer ${opts.token}` };
  const client = new Client({ name: "hcp-http-test", version: "1.0.0" }, { capabilities: opts.elicit ? { elicitation: {} } : {} });
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params.message, req.params));
  }
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  await client.connect(transport);
  return { client, transport };
}

export interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One raw HTTP request (POST unless told), with the headers a Streamable HTTP client sends. `declaredLength`: only the
 * headers are sent, with this Content-Length; the server must answer without the body. `localAddress`: the address
 * the request comes from (any of 127.0.0.0/8 reaches a loopback server on Linux).
 */
export function rawHttp(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string; declaredLength?: number; localAddress?: string }): Promise<Raw> {
  const body = opts.body ?? "";
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: opts.method ?? "POST",
      ...(opts.localAddress === undefined ? {} : { localAddress: opts.localAddress }),
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "content-length": String(opts.declaredLength ?? Buffer.byteLength(body)), ...opts.headers },
    });
    req.on("response", (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => (text += c));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text });
        req.destroy();
      });
    });
    req.on("error", reject);
    if (opts.declaredLength === undefined) req.end(body);
    else req.flushHeaders();
  });
}

/** Runs one `hcp exec` session: the lines in, the parsed response lines out. */
export async function execSession(paths: string[], lines: string[], extra: string[] = [], options?: Parameters<typeof run>[2]) {
  const r = await hcp(["exec", ...paths, ...extra], { ...options, stdin: lines.map((l) => l + "\n").join("") });
  const responses = r.stdout
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as { id: string | number | null; ok: boolean; result?: Record<string, unknown>; error?: { code: string; message: string } });
  return { ...r, responses };
}

/** A result without its timing, for comparing runs. */
export function timeless(r: unknown): unknown {
  if (typeof r !== "object" || r === null) return r;
  const { duration_ms: _drop, ...rest } = r as Record<string, unknown>;
  return rest;
}
