// Shared by the hcp transport tests: the built program, fixture packs, an MCP client over stdio, exec sessions.

import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema, type ElicitResult } from "@modelcontextprotocol/sdk/types.js";
import { REPO, fixture, run, type Run } from "../e2e/helpers.js";

export const HCP = `${REPO}dist/bin/hcp.cjs`;
export const PROBE_PACK = fixture("packs/hcp-probe");
export const SECRET_PACK = fixture("packs/hcp-secret");
export const pack = (name: string) => fixture(`packs/${name}`);

export const hcp = (args: string[], options?: Parameters<typeof run>[2]): Promise<Run> => run(process.execPath, [HCP, ...args], options);

export const tempDir = (prefix = "hcp-test-") => mkdtempSync(join(tmpdir(), prefix));

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
  /** Declares the elicitation capability and answers every elicitation/create with this. */
  elicit?: (message: string) => ElicitResult;
}

/** An SDK Client connected over stdio to a freshly spawned `hcp serve --mcp`. */
export async function mcpClient(paths: string[], opts: McpOptions = {}): Promise<{ client: Client; stderr: () => string }> {
  const args = [HCP, "serve", "--mcp", ...paths, ...(opts.allowWrite ? ["--allow-write"] : []), ...(opts.args ?? [])];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args,
    cwd: opts.cwd ?? REPO,
    env: (opts.env ?? process.env) as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  const client = new Client({ name: "hcp-test", version: "1.0.0" }, { capabilities: opts.elicit ? { elicitation: {} } : {} });
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (req) => answer(req.params.message));
  }
  await client.connect(transport);
  return { client, stderr: () => stderr };
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
