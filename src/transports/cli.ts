// The `cli` transport: one verb (or a pass-through) from command-line operands, its output and exit code.

import { constants } from "node:os";
import { stableJSON } from "../json/stable.js";
import { setOwn } from "../json/own.js";
import { isObject } from "../pack/issues.js";
import { shellWord } from "../shell-word.js";
import type { OutputEvent } from "../runtime/process/live-output.js";
import { executeVerb, isDryRun, runPassThrough, type DryRun, type ExecResult } from "../runtime/execute.js";
import { loadOpenApiDocuments } from "../runtime/openapi/packs.js";
import { isHttpResult, type HttpResult } from "../runtime/openapi/result.js";
import { stateDirOf } from "../runtime/approval/state.js";
import { RuntimeError } from "../runtime/errors.js";
import { maskError, packSecrets } from "../runtime/secrets/secrets.js";
import { usableVerbs } from "../runtime/verb-lookup.js";
import { verbsHint } from "../runtime/verb-names.js";
import { givenPackFolder, realPackPath, refuseWithheldDocument, type TrustAsker } from "../runtime/trust/trust.js";
import { TransportError, childExitCode, httpExitCode, jsonSyntax } from "./errors.js";
import { loadOnePack, servable, type ServedPack, type ServeOptions } from "./packs.js";
import { httpOutcome, outcome, pagingHeaders, renderPlan } from "./render.js";

export interface CliRunRequest extends ServeOptions {
  /** A pack folder or its surface.json. */
  pack: string;
  verb?: string;
  /** The argv after `--`: a pass-through invocation. */
  passThrough?: string[];
  /** `k=v` (a string) or `k:=JSON` (any JSON value), each name at most once; they win over `args`. */
  arg?: string[];
  /** A JSON object of arguments, under the `--arg` ones. */
  args?: string;
  dryRun?: boolean;
  confirm?: string;
  json?: boolean;
  signal?: AbortSignal;
  /** Asks a person at a terminal to trust a pack that is not trusted (PlanOptions.trust); refused otherwise. */
  askTrust?: TrustAsker;
  /** Without --json: the child's output is written here as it arrives (masked), instead of in the CliOutput. */
  write?: (stream: "stdout" | "stderr", text: string) => void;
}

export interface CliOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Builds the arguments object of `--args` and `--arg`. */
export function cliArgs(args: string | undefined, arg: readonly string[] = []): Record<string, unknown> {
  let out: Record<string, unknown> = {};
  if (args !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(args);
    } catch (e) {
      throw new TransportError("usage", `--args is not valid JSON: ${jsonSyntax(e)}`);
    }
    if (!isObject(parsed)) throw new TransportError("usage", "--args must be a JSON object");
    out = parsed;
  }
  const given = new Set<string>();
  for (const a of arg) {
    const eq = a.indexOf("=");
    if (eq <= 0) throw new TransportError("usage", `--arg ${JSON.stringify(a)}: expected NAME=VALUE or NAME:=JSON`);
    const name = a.slice(0, eq);
    const value = a.slice(eq + 1);
    // Two values for one name is a mistake, not a choice: refuse rather than keep one silently.
    const key = name.endsWith(":") ? name.slice(0, -1) : name;
    if (given.has(key)) throw new TransportError("usage", `--arg ${key} is given more than once (an array is one JSON value: --arg ${key}:='["a","b"]')`);
    given.add(key);
    let parsed: unknown = value;
    if (name.endsWith(":")) {
      try {
        parsed = JSON.parse(value);
      } catch (e) {
        throw new TransportError("usage", `--arg ${name}=: the value is not valid JSON: ${jsonSyntax(e)}`);
      }
    }
    // `--arg __proto__:=…` is a key, as in the same `--args` (setOwn): never the arguments' prototype.
    setOwn(out, key, parsed);
  }
  return out;
}

/**
 * An argument given as a string (`--arg limit=5`) where the verb takes a number, boolean, array or object, in
 * `hcp run`'s terms: the runtime's "must be integer" alone does not say that `:=` passes the number.
 */
function withArgHint(err: unknown, arg: readonly string[] = []): unknown {
  if (!(err instanceof RuntimeError) || err.code !== "invalid_args") return err;
  const m = /argument "([A-Za-z0-9_.-]+)": must be (integer|number|boolean|array|object|null)\b/.exec(err.message);
  if (m === null || !arg.some((a) => a.startsWith(`${m[1]}=`))) return err;
  return new RuntimeError(err.code, `${err.message} (--arg ${m[1]}=… passes a string: give the ${m[2]} as JSON, --arg ${m[1]}:=…)`);
}

/** Runs the request. Runtime and transport errors are thrown, masked, for the program to map once. */
export async function cliRun(req: CliRunRequest): Promise<CliOutput> {
  // By its real folder: the one a person trusted, which a link cannot change after the trust check.
  const loaded = loadOnePack(realPackPath(req.pack));
  // Nobody to ask: a pack a person did not trust never has hcp fetch its document (the agent may have written its URL).
  const stateDir = req.gate?.stateDir ?? stateDirOf(process.env);
  await loadOpenApiDocuments([loaded], req.askTrust === undefined ? { fetch: "trusted-only", stateDir } : { fetch: "command-line" }, stateDir);
  refuseWithheldDocument(loaded);
  const pack = servable(loaded, "cli", req);
  try {
    return await runOn(pack, req);
  } catch (err) {
    // The runtime masks what it throws; this also covers the transport's own errors (--args, usage).
    throw maskError(withArgHint(err, req.arg), packSecrets([pack], process.env, stateDir));
  }
}

async function runOn(pack: ServedPack, req: CliRunRequest): Promise<CliOutput> {
  const write = req.json ? undefined : req.write;
  // What the person is told on stderr: the run's warnings (OUTPUT_HELD), then what the result says.
  const notes: string[] = [];
  const opts = {
    allowWrite: req.allowWrite,
    dryRun: req.dryRun,
    confirm: req.confirm,
    signal: req.signal,
    gate: req.gate,
    transport: "cli" as const,
    oneCall: true,
    // The caller of hcp run may have written the pack: only a pack a person trusted runs (and gets credentials).
    // Its files may name the folder neither by its real path nor as the caller named it (pack-self-paths.ts).
    trust: { ask: req.askTrust, named: [givenPackFolder(req.pack)] },
    onOutput: write === undefined ? undefined : (e: OutputEvent) => e.text !== "" && write(e.stream, e.text),
    onWarning: (w: string) => notes.push(`Warning: ${w}`),
  };
  let r: ExecResult | HttpResult | DryRun;
  if (req.passThrough !== undefined) {
    if (req.verb !== undefined) throw new TransportError("usage", "give either VERB or -- SUBCOMMAND…, not both");
    if (req.arg?.length || req.args !== undefined) throw new TransportError("usage", "--arg and --args do not apply to a pass-through");
    r = await runPassThrough(pack, req.passThrough, opts);
  } else {
    if (req.verb === undefined) throw missingVerb(pack, req.pack);
    r = await executeVerb(pack, req.verb, cliArgs(req.args, req.arg), opts);
  }
  if (isDryRun(r)) return { stdout: req.json ? stableJSON(r) : renderPlan(r, "flag", req.allowWrite === true), stderr: "", exitCode: 0 };
  if (isHttpResult(r)) return httpOutput(r, req.json === true);
  const exitCode = childExitCode(r, constants.signals);
  // The result has no field for the warnings: they go to stderr, beside --json's result too.
  if (req.json) return { stdout: stableJSON(r), stderr: notes.map((n) => n + "\n").join(""), exitCode };
  if (r.stdout_truncated) notes.push(`Warning: stdout truncated: ${r.stdout_bytes} bytes written, the rest dropped`);
  if (r.stderr_truncated) notes.push(`Warning: stderr truncated: ${r.stderr_bytes} bytes written, the rest dropped`);
  if (r.timed_out || r.signal !== null) notes.push(`Error: ${r.verb === null ? "the pass-through" : `verb ${JSON.stringify(r.verb)}`} ${outcome(r)}`);
  const streamed = write !== undefined;
  return { stdout: streamed ? "" : r.stdout, stderr: (streamed ? "" : r.stderr) + notes.map((n) => n + "\n").join(""), exitCode };
}

/** No verb named: the verbs the caller may use (never a denied one, as for a mistyped verb) and where to read about them. */
function missingVerb(pack: ServedPack, given: string): TransportError {
  return new TransportError(
    "usage",
    `a VERB (or -- SUBCOMMAND… for a pass-through) is required (${verbsHint(usableVerbs(pack, pack.surface))}; hcp describe ${shellWord(given)} shows their arguments)`,
  );
}

/** An openapi verb's output: the body as is (or the §6.7 result under --json); the status decides the exit code. */
function httpOutput(r: HttpResult, json: boolean): CliOutput {
  const exitCode = r.timed_out ? 2 : httpExitCode(r.status);
  if (json) return { stdout: stableJSON(r), stderr: "", exitCode };
  const notes: string[] = [];
  if (r.body_truncated) notes.push(`Warning: body truncated: the first ${Buffer.byteLength(r.body)} bytes kept, the rest not read`);
  notes.push(...pagingHeaders(r).map((h) => `Note: ${h}`));
  if (!r.ok) notes.push(`Error: ${httpOutcome(r)}`);
  if (r.note !== undefined) notes.push(`Note: ${r.note}`);
  const body = r.body === "" || r.body.endsWith("\n") ? r.body : r.body + "\n";
  return { stdout: body, stderr: notes.map((n) => n + "\n").join(""), exitCode };
}
