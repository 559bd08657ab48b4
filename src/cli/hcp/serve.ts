// `hcp exec` and `hcp serve --mcp`: the long-running transports, on this process's stdin and stdout or (--http) on a port.

import { isatty } from "node:tty";
import type { Context } from "../../framework/index.js";
import { formatIssue } from "../../pack/issues.js";
import { agentFoldersOf, namesOf } from "../../runtime/agent-folders.js";
import { stateDirOf } from "../../runtime/approval/state.js";
import { CredentialError } from "../../runtime/errors.js";
import type { DocumentFetch } from "../../runtime/openapi/packs.js";
import { readSecretFile } from "../../runtime/secrets/secret-file.js";
import { TransportError } from "../../transports/errors.js";
import { serveExec } from "../../transports/exec.js";
import { exitIfNeverTaken } from "../../transports/outbox.js";
import { isLoopback, parseAllowHost, parseListen, type HttpOptions, type Listen } from "../../transports/mcp-http.js";
import { auditLogWarnings, inStartFolder, installWarnings, loadServed, unsetEnvWarnings, workspaceWarnings, type PackCheck, type ServedPack, type ServeOptions } from "../../transports/packs.js";
import { PACKAGE_VERSION } from "../version.js";
import { operatorForbidsPrompts, refuseWhereAgentRuns, serveOptions, toolSelection } from "./flags.js";
import { stopExitCode, untilSignal } from "../signal.js";
import { boundYoungGeneration } from "./young-generation.js";

/** A warning on stderr, the operator's terminal. */
const warnOperator = (text: string) => process.stderr.write(`Warning: ${text}\n`);

/**
 * The packs a transport serves; those of a folder of packs that it may not serve (or, `check`, whose verbs cannot be
 * its tools), and those the agent could rewrite, are named on stderr (and returned as warnings).
 */
async function served(paths: readonly string[], transport: "json_exec" | "mcp", opts: ServeOptions, check?: PackCheck): Promise<{ packs: ServedPack[]; warnings: string[] }> {
  const trusted = operatorForbidsPrompts() ? await trustedOnly(opts) : undefined;
  // The person's command line names these packs: their documents are fetched (DocumentFetch); under HCP_NO_PROMPT,
  // where it may be the agent's, only those of packs a person trusted.
  const { packs, skipped } = await loadServed(paths, transport, opts, trusted?.fetch ?? { fetch: "command-line" }, both(check, trusted?.check));
  const rewritable = workspaceWarnings(packs, opts, (folder) => `${folder}, the folder its server's verbs run in, where the agent writes files`);
  // An --approver that cannot be asked refuses every gated call: the operator hears of it now, not only the agent then.
  const approvers = (opts.gate?.approvers ?? []).flatMap((a) => a.problem?.() ?? []).map((why) => `${why}: every call that needs a person's approval is refused until it can be asked`);
  const warnings = [...skipped.map((s) => `skipped ${s.root}: ${s.reason}`), ...rewritable, ...auditLogWarnings(opts), ...installWarnings(opts), ...approvers, ...unsetEnvWarnings(packs)];
  for (const w of warnings) warnOperator(w);
  // Keyring values are read now, so that every call masks them from the first: a verb of another pack can print the
  // environment of a running program that holds them (runtime/secrets/keyring-read.ts).
  if (packs.some((p) => p.surface.binding?.hub === "keyring")) (await import("../../runtime/secrets/secrets.js")).readPackKeyrings(packs);
  return { packs, warnings };
}

/** Under HCP_NO_PROMPT: the packs served are those a person trusted, and only their documents are fetched. */
async function trustedOnly(opts: ServeOptions): Promise<{ fetch: DocumentFetch; check: PackCheck }> {
  const { requireTrustedToServe } = await import("../../runtime/trust/trust.js");
  const stateDir = opts.gate?.stateDir ?? stateDirOf(process.env);
  return { fetch: { fetch: "trusted-only", stateDir }, check: (pack) => requireTrustedToServe(pack, stateDir) };
}

/** Both checks, in order. */
function both(first: PackCheck | undefined, second: PackCheck | undefined): PackCheck | undefined {
  if (first === undefined || second === undefined) return first ?? second;
  return (pack) => {
    first(pack);
    second(pack);
  };
}

/**
 * The packs' own warnings (validation issues that do not stop a pack loading), written once on stderr, the operator's
 * terminal, with the packs' secrets masked as everything the server sends is; returned, masked, for an MCP client's log.
 */
async function tellOperator(packs: readonly ServedPack[]): Promise<string[]> {
  const warnings = packs.flatMap((p) => p.issues.filter((i) => i.severity === "warning").map((i) => `pack ${p.surface.id}: ${formatIssue(i)}`));
  if (warnings.length === 0) return [];
  const [{ packSecrets }, { redactText }] = await Promise.all([import("../../runtime/secrets/secrets.js"), import("../../runtime/secrets/redact.js")]);
  const secrets = packSecrets(packs);
  const masked = warnings.map((w) => redactText(w, secrets));
  for (const w of masked) warnOperator(w);
  return masked;
}

export async function execHandler(ctx: Context): Promise<void> {
  const concurrency = ctx.int("concurrency");
  if (concurrency < 1 || concurrency > 1024) throw new TransportError("usage", `--concurrency must be an integer from 1 to 1024, got ${concurrency}`);
  const opts = serveOptions(ctx);
  boundYoungGeneration();
  const { packs } = await served(ctx.args, "json_exec", opts);
  await tellOperator(packs);
  // Until the end of stdin, or SIGINT/SIGTERM/a closed stdout (then running children are killed and answered).
  await untilSignal(async (signal) => {
    await serveExec(packs, process.stdin, process.stdout, { ...opts, concurrency, signal, onWarning: warnOperator });
    const code = stopExitCode(signal);
    if (code !== null) ctx.setExitCode(code);
  });
  // Stopped with stdin still open: it no longer holds the process.
  process.stdin.destroy();
  // Answers a client never takes do not hold it either, once it has taken none for a while.
  exitIfNeverTaken(process.stdout);
}

/**
 * The bearer token of --token-file: the file, read as the credential file is (a regular file that only its owner may
 * read or write), less one trailing newline. No error quotes it.
 */
/** The shortest bearer token served: 16 random hex digits are 64 bits. */
const MIN_TOKEN_LENGTH = 16;

function readToken(file: string): string {
  const text = readSecretFile(file, "token file");
  if (text === undefined) throw new CredentialError("credentials_unavailable", `token file ${file} does not exist; create it with: umask 077 && openssl rand -hex 32 > ${file}`);
  const token = text.replace(/\r?\n$/, "");
  if (token === "") throw new CredentialError("credentials_invalid", `token file ${file} is empty; put the token in it, on one line`);
  // A client sends it as `Authorization: Bearer <token>`, one run of visible characters: anything else could never match.
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new CredentialError("credentials_invalid", `token file ${file} must hold the token alone on one line: visible ASCII characters, no space, tab or second line`);
  }
  // Every request may try a token, and a 401 costs the guesser nothing: a short one can be found by trying.
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new CredentialError("credentials_invalid", `token file ${file} holds a token of ${token.length} characters; use at least ${MIN_TOKEN_LENGTH} random ones: umask 077 && openssl rand -hex 32 > ${file}`);
  }
  return token;
}

type Door = Listen & Pick<HttpOptions, "token" | "sessions" | "maxRequests" | "allowHosts">;

/** A whole number of --NAME from min to max. */
function bounded(ctx: Context, name: string, min: number, max: number): number {
  const n = ctx.int(name);
  if (n < min || n > max) throw new TransportError("usage", `--${name} must be an integer from ${min} to ${max}, got ${n}`);
  return n;
}

/** The session limits of --stateful; its flags without it are refused. */
function sessionsOf(ctx: Context): HttpOptions["sessions"] {
  if (!ctx.bool("stateful")) {
    const given = ["max-sessions", "idle-timeout"].find((f) => ctx.changed(f));
    if (given !== undefined) throw new TransportError("usage", `--${given} goes with --stateful: a stateless server keeps no sessions`);
    return undefined;
  }
  return { max: bounded(ctx, "max-sessions", 1, 100_000), idleMs: bounded(ctx, "idle-timeout", 1, 86_400) * 1000 };
}

/** Where --http listens, the token it requires and its sessions: a bind off loopback without a token is refused. */
function httpDoor(ctx: Context): Door | null {
  const spec = ctx.string("http");
  const tokenFile = ctx.string("token-file");
  if (spec === "") {
    const given = ["token-file", "stateful", "max-sessions", "idle-timeout", "max-requests", "allow-host"].find((f) => ctx.changed(f));
    if (given !== undefined) throw new TransportError("usage", `--${given} goes with --http: the stdio server is one session, with no bearer tokens`);
    return null;
  }
  const listen = parseListen(spec);
  if (!isLoopback(listen.host)) {
    // Where the agent's commands run, the command line may be the agent's: a bind off loopback would let whoever reaches
    // the port (with the agent's own token) call the person's trusted verbs, a way out for what they read.
    refuseWhereAgentRuns(`hcp serve --http ${spec}`, "open your packs to the network (whoever reaches the port would call their verbs, with your credentials)");
    if (tokenFile === "") throw new TransportError("usage", `--http ${spec}: refusing to serve on ${listen.host}, which is not loopback, without --token-file FILE (a bearer token every request must carry)`);
  }
  const sessions = sessionsOf(ctx);
  const door = { ...listen, maxRequests: bounded(ctx, "max-requests", 1, 100_000), allowHosts: ctx.strings("allow-host").map(parseAllowHost) };
  return { ...door, ...(tokenFile === "" ? {} : { token: readToken(tokenFile) }), ...(sessions === undefined ? {} : { sessions }) };
}

/**
 * The CLI packs whose verbs would run in `/`: the folder a client such as Claude Desktop starts its servers in, and
 * hardly one anybody chose for a CLI's verbs (git's repository, a project's files).
 */
function rootFolderWarnings(packs: readonly ServedPack[], opts: ServeOptions): string[] {
  if (process.cwd() !== "/") return [];
  const ids = inStartFolder(packs, opts).map((p) => JSON.stringify(p.surface.id));
  if (ids.length === 0) return [];
  return [`the verbs of ${ids.length === 1 ? "pack" : "packs"} ${ids.join(", ")} run in /, the folder this server was started in: choose theirs with --cwd FOLDER (or cwd in policy.json)`];
}

/**
 * A server that knows no folder as the agent's: started in `/` or the home folder (where clients such as Claude Desktop
 * start theirs), without --cwd elsewhere or HCP_AGENT_FOLDERS. Its agent edits files somewhere all the same, and the
 * rules of the agent's folders (PATH, approvers, hcp's own files) then guard none.
 */
function unknownWorkspaceWarnings(opts: ServeOptions): string[] {
  if (agentFoldersOf(opts.cwd).some((folder) => namesOf(folder).length > 0)) return [];
  return [`this server knows no folder as the agent's (it runs in ${process.cwd()}): name the folders the agent writes in with HCP_AGENT_FOLDERS (absolute, separated by :), so that programs on PATH, approvers and hcp's own files there are never used (a client that names its workspace, its MCP roots, names them too)`];
}

/**
 * Why this server never asks its client to approve a plan (elicitation), if it would have: under the operator's
 * HCP_NO_PROMPT the agent's commands run in this environment, so the client may be the agent (a server it started and
 * writes to); on a terminal (stdio), whoever types there is the client. No --approver, no --no-elicitation.
 */
function elicitationForbidden(ctx: Context, opts: ServeOptions, stdio: boolean): string | undefined {
  if (ctx.bool("no-elicitation") || (opts.gate?.approvers.length ?? 0) > 0) return undefined;
  if (operatorForbidsPrompts()) return "HCP_NO_PROMPT is set, as an operator sets it where an agent's commands run, so its client may be the agent";
  if (stdio && (isatty(0) || isatty(1))) return "it runs on a terminal, where whoever types is its client";
  return undefined;
}

/**
 * The packs `hcp serve --mcp` serves: a pack of a folder of packs whose served verbs cannot be tools (alone, or beside a
 * pack loaded before it) is left out as one that does not load is, not a refusal to start. Only MCP has tool names:
 * hcp exec does not check them.
 */
async function mcpServed(ctx: Context, opts: ServeOptions, stdio: boolean): Promise<{ packs: ServedPack[]; warnings: string[]; noElicitation: boolean }> {
  const { toolCheck } = await import("../../transports/tools.js");
  const tools = toolCheck({ ...opts, ...toolSelection(ctx) });
  const { packs, warnings } = await served(ctx.args, "mcp", opts, tools.check);
  const forbidden = elicitationForbidden(ctx, opts, stdio);
  const unasked = forbidden === undefined ? [] : [`this server never asks its client to approve a plan (${forbidden}): a person approves with hcp approve, in a terminal of their own`];
  for (const w of [...tools.warnings(), ...rootFolderWarnings(packs, opts), ...unknownWorkspaceWarnings(opts), ...unasked]) {
    warnOperator(w);
    warnings.push(w);
  }
  return { packs, warnings, noElicitation: ctx.bool("no-elicitation") || forbidden !== undefined };
}

/** On stdio, nothing but the MCP server writes to stdout; over HTTP, the URL is printed on stderr. */
export async function serveHandler(ctx: Context): Promise<void> {
  if (!ctx.bool("mcp")) throw new TransportError("usage", "hcp serve needs a transport: --mcp (the MCP server, on stdio or with --http)");
  const http = httpDoor(ctx);
  boundYoungGeneration();
  // Start loading the SDK first: its file reads overlap the packs' loading.
  const mcp = import("../../transports/mcp.js");
  mcp.catch(() => {});
  if (http !== null) return serveHttp(ctx, http);
  const opts = serveOptions(ctx);
  const { packs, warnings, noElicitation } = await mcpServed(ctx, opts, true);
  // The packs' own warnings go to the operator's terminal and to the client's log.
  warnings.push(...(await tellOperator(packs)));
  const { serveMcp } = await mcp;
  // Until the end of stdin (calls in flight finish), or SIGINT/SIGTERM/a closed stdout (they are cancelled).
  await untilSignal(async (signal) => {
    await serveMcp(packs, { ...opts, ...toolSelection(ctx), noElicitation, warnings, version: PACKAGE_VERSION, signal });
    const code = stopExitCode(signal);
    if (code !== null) ctx.setExitCode(code);
  });
  process.stdin.destroy();
  exitIfNeverTaken(process.stdout);
}

const printUrl = (url: string) => process.stderr.write(`hcp: serving MCP over HTTP at ${url}\n`);

/** `--mcp --http`: until SIGINT/SIGTERM, then what is in flight is cancelled and answered, and the port freed. */
async function serveHttp(ctx: Context, door: Door): Promise<void> {
  const opts = serveOptions(ctx);
  const { packs, noElicitation } = await mcpServed(ctx, opts, false);
  await tellOperator(packs);
  const { serveMcpHttp } = await import("../../transports/mcp-http.js");
  await untilSignal(async (signal) => {
    await serveMcpHttp(packs, { ...opts, ...toolSelection(ctx), noElicitation, ...door, version: PACKAGE_VERSION, signal, onListening: printUrl });
    const code = stopExitCode(signal);
    if (code !== null) ctx.setExitCode(code);
  });
  process.stdin.destroy();
}
