// `hcp mcp-config PACK|DIR…`: prints the client configuration that starts `hcp serve --mcp` on these packs, ready to
// paste; `hcp mcp-config --url URL`, the one that reaches an `hcp serve --mcp --http` already running.

import { realpathSync } from "node:fs";
import { resolve } from "node:path";
import type { Context } from "../../framework/index.js";
import { agentFoldersOf } from "../../runtime/agent-folders.js";
import { stateDirOf } from "../../runtime/approval/state.js";
import { trustedApprover } from "../../runtime/approval/trusted.js";
import { placesEnv } from "../../runtime/places.js";
import { withheldDocument } from "../../runtime/openapi/packs.js";
import { shellWord } from "../../shell-word.js";
import { TransportError } from "../../transports/errors.js";
import { CONFIG_FILES, MCP_CLIENTS, REMOTE_CONFIG_FILES, renderMcpConfig, renderRemoteConfig, type McpClient } from "../../transports/mcp-config.js";
import { auditLogWarnings, inStartFolder, installWarnings, loadServed, passedEnv, workspaceWarnings, type Served } from "../../transports/packs.js";
import { toolCheck } from "../../transports/tools.js";
import { optionalString } from "../flags.js";
import { AUDIT, SERVED_FLAGS, serveOptions, toolSelection } from "./flags.js";
import { isVariableName } from "../../runtime/env.js";

/** This program as node and an absolute script path, so the client needs no PATH. */
function thisProgram(): { command: string; script: string } {
  const script = process.argv[1];
  if (script === undefined) throw new TransportError("internal", "cannot tell where this hcp program is");
  return { command: process.execPath, script: realpathSync(script) };
}

/**
 * --approver (its -arg and -timeout) as the server must get them: paths absolute, since the client starts it from
 * another folder. The approver must be one the person listed (refused now, not at the first call), and is
 * carried as the listed path. serveOptions has checked the rest.
 */
function approvalFlags(ctx: Context, cwd: string | undefined): string[] {
  const out: string[] = [];
  const approver = optionalString(ctx, "approver");
  if (approver !== undefined) {
    // The server runs where the client starts it (this folder, for a project's .mcp.json) or in --cwd: the agent's.
    out.push("--approver", trustedApprover(approver, process.env, agentFoldersOf(cwd)));
    for (const a of ctx.strings("approver-arg")) out.push("--approver-arg", a);
    if (ctx.changed("approver-timeout")) out.push("--approver-timeout", String(ctx.int("approver-timeout")));
  }
  if (ctx.bool("no-elicitation")) out.push("--no-elicitation");
  return out;
}

/**
 * What the server will do with a pack of a folder that did not load here. One left out only because its document was
 * not fetched (an untrusted pack's openapi.url) is not one the server leaves out: it fetches the document itself.
 */
function skippedWhy(s: Served["skipped"][number]): string {
  const unfetched = withheldDocument(s.pack);
  if (unfetched === undefined) return `the server will leave out ${s.root}: ${s.reason}`;
  return `${s.root} was not checked: its OpenAPI document (openapi.url) is fetched here only for a pack a person trusted, and ${unfetched}; the server fetches it as it starts, and leaves the pack out if it does not load (to check it here, trust it: hcp trust ${shellWord(s.root)})`;
}

/** `hcp-<id>`, or the id itself when it already says hcp. */
const serverName = (id: string) => (id.startsWith("hcp") ? id : `hcp-${id}`);


/** The entry of a server started with `hcp serve --mcp --http`, which the client reaches at --url. */
async function remoteConfig(ctx: Context, client: McpClient): Promise<void> {
  if (ctx.args.length > 0) throw new TransportError("usage", "--url names a server that is already running: its packs are given to hcp serve --http, not here");
  // What a server serves and how is the server's own, never a client's that reaches one by --url.
  const given = SERVED_FLAGS.map((f) => f.name).find((f) => ctx.changed(f));
  if (given !== undefined) throw new TransportError("usage", `--${given} is the server's: give it to the hcp serve --http that serves --url, not to the client's configuration`);
  const url = ctx.string("url");
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    // refused below
  }
  if (parsed === undefined || (parsed.protocol !== "https:" && parsed.protocol !== "http:")) throw new TransportError("usage", `--url must be an http or https URL, such as https://mcp.example.com/mcp, got ${JSON.stringify(url)}`);
  // A password in the URL would be written into the configuration, as a token would.
  if (parsed.username !== "" || parsed.password !== "") throw new TransportError("usage", "--url must carry no user name or password: the client sends the server's token from the variable --token-env names");
  const tokenEnv = optionalString(ctx, "token-env");
  if (tokenEnv !== undefined && !isVariableName(tokenEnv)) throw new TransportError("usage", `--token-env must name an environment variable (letters, digits and _, not starting with a digit), got ${JSON.stringify(tokenEnv)}`);
  const server = { name: optionalString(ctx, "name") ?? "hcp", url: parsed.href, ...(tokenEnv === undefined ? {} : { tokenEnv }) };
  const text = renderRemoteConfig(client, server);
  await ctx.writeResult({ client, name: server.name, url: server.url, ...(tokenEnv === undefined ? {} : { token_env: tokenEnv }), config: text }, () => text);
  ctx.infof(`paste into ${REMOTE_CONFIG_FILES[client]}`);
  if (tokenEnv !== undefined && client !== "vscode") ctx.infof(`the client reads the token from ${tokenEnv}: set it in the environment the client starts in`);
}

export async function mcpConfigHandler(ctx: Context): Promise<void> {
  const client = ctx.string("client") as McpClient;
  if (!MCP_CLIENTS.includes(client)) throw new TransportError("usage", `--client must be one of ${MCP_CLIENTS.join(", ")}, got ${JSON.stringify(client)}`);
  if (ctx.changed("url")) return remoteConfig(ctx, client);
  if (ctx.changed("token-env")) throw new TransportError("usage", "--token-env goes with --url: a server the client starts (these packs) takes no token");
  if (ctx.args.length === 0) throw new TransportError("usage", "hcp mcp-config needs packs (a server the client starts) or --url (one started with hcp serve --mcp --http)");
  const opts = serveOptions(ctx);
  const selection = toolSelection(ctx);
  // The packs must load now: a configuration that starts a server refusing to run helps nobody. Printing it is no
  // person's decision to serve them (an agent may run it: it is an ungated read of hcp's own pack), so the document
  // an untrusted pack names by openapi.url is not fetched; the person trusts the pack, or serves it directly.
  // The server leaves out (or, named directly, refuses) a pack whose verbs cannot be tools: so does this.
  const tools = toolCheck({ ...opts, ...selection });
  const { packs, skipped } = await loadServed(ctx.args, "mcp", opts, { fetch: "trusted-only", stateDir: stateDirOf(process.env) }, tools.check);
  // Warnings, not chatter: --quiet and --json keep them.
  for (const s of skipped) process.stderr.write(`Warning: ${skippedWhy(s)}\n`);
  // --cwd, else this folder: where a client such as Claude Code (a project's .mcp.json) starts the server.
  const where = (folder: string) =>
    opts.cwd === undefined
      ? `${folder}, where a client configured for this folder (a project's .mcp.json) starts the server and the agent writes files`
      : `${folder}, the folder its verbs run in (--cwd), where the agent writes files`;
  for (const w of [...workspaceWarnings(packs, opts, where), ...auditLogWarnings(opts), ...installWarnings(opts)]) process.stderr.write(`Warning: ${w}\n`);
  for (const w of tools.warnings()) process.stderr.write(`Warning: ${w}\n`);
  const paths = ctx.args.map((p) => resolve(p));
  const flags = [
    ...(opts.allowWrite ? ["--allow-write"] : []),
    ...(opts.controlPlane ? ["--control-plane"] : []),
    ...(opts.strict ? ["--strict"] : []),
    ...(opts.cwd === undefined ? [] : ["--cwd", opts.cwd]),
    ...(selection.readOnly ? ["--read-only"] : []),
    ...(selection.tools ?? []).flatMap((g) => ["--tools", g]),
    ...(selection.exclude ?? []).flatMap((g) => ["--exclude", g]),
    ...approvalFlags(ctx, opts.cwd),
  ];
  const { command, script } = thisProgram();
  const name = optionalString(ctx, "name") ?? (packs.length === 1 && paths.length === 1 ? serverName(packs[0]!.surface.id) : "hcp");
  // The client starts the server with its own environment: the places this shell names (credential file, state
  // directory, approvers file, audit log) would be lost, and `hcp approve` here would approve where the server never looks.
  // --audit is carried as HCP_AUDIT, the entry's environment: a server's --audit is refused where HCP_NO_PROMPT is set
  // (its command line may be the agent's there), and a client started in such an environment starts its servers in it.
  const audit = optionalString(ctx, AUDIT.name);
  const places = placesEnv(audit === undefined || audit === "" ? process.env : { ...process.env, HCP_AUDIT: audit });
  const env = Object.keys(places).length > 0 ? { env: places } : {};
  const server = { name, command, args: [script, "serve", "--mcp", ...paths, ...flags], ...env };
  const text = renderMcpConfig(client, server);
  await ctx.writeResult({ client, ...server, config: text }, () => text);
  ctx.infof(`paste into ${CONFIG_FILES[client]}`);
  // Codex under approval policy `never` answers every elicitation with a decline, unseen (docs/mcp.md).
  if (client === "codex" && !ctx.bool("no-elicitation") && optionalString(ctx, "approver") === undefined) {
    ctx.infof("Codex under approval policy never declines hcp's question about a gated plan by itself, and a declined plan cannot run again in its session: for such a Codex, add --no-elicitation and approve with hcp approve");
  }
  // The client starts the server in its own environment, not this shell's: a pack's variables must be set there.
  for (const { pack, names, unset } of passedEnv(packs)) {
    const them = names.length === 1 ? "it" : "them";
    const line = `pack ${JSON.stringify(pack.surface.id)}'s verbs get ${names.join(", ")} (policy.json env) from the environment the client starts hcp in: set ${them} there (a client started from a menu has not your shell's); a plain value may go in this entry's "env", a secret not (the client's configuration is a file others may read)`;
    // Unset here too: likely unset where the client starts, and the verbs would run without them. A warning, kept by --quiet.
    if (unset.length > 0) process.stderr.write(`Warning: ${line}; unset here: ${unset.join(", ")}\n`);
    else ctx.infof(line);
  }
  const unplaced = inStartFolder(packs, opts);
  if (unplaced.length > 0) {
    const which = unplaced.length === 1 ? `pack ${JSON.stringify(unplaced[0]!.surface.id)} sets` : `${unplaced.length} packs set`;
    ctx.infof(`${which} no cwd in policy.json: the verbs run in the folder the client starts the server in; to choose it, add --cwd FOLDER`);
  }
}
