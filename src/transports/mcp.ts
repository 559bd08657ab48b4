// The `mcp` transport: a stdio MCP server (the SDK's low-level Server) exposing verbs as tools and HARNESS.md as
// resources. The SDK is imported only once a message needs it (see mcp-link.ts).

import { SKILL_WHOLE_MAX_BYTES } from "../pack/harness-sections.js";
import { compileSchema } from "../pack/schema.js";
import { monotonicMs } from "../runtime/clock.js";
import { setMaxListeners } from "node:events";
import type { OutputEvent } from "../runtime/process/live-output.js";
import { ApprovalSession, defaultGate, type Gate } from "../runtime/approval/gate.js";
import type { Limiter } from "../runtime/limiter.js";
import type { PersonApprover } from "../runtime/approval/approvers.js";
import { approvalAnswer, approvalQuestion } from "./mcp-approval.js";
import { argsSchemaOf, executeVerb, isDryRun, type DryRun, type ExecResult } from "../runtime/execute.js";
import { workingFolder } from "../runtime/command.js";
import { maskError, packSecrets } from "../runtime/secrets/secrets.js";
import { redactStrings, redactText, type SecretSet } from "../runtime/secrets/redact.js";
import { readsAsWritten } from "../json/reads-as-written.js";
import { startWatchdog } from "../runtime/process/watchdog.js";
import { sdkServerModule, sdkTypesModule } from "./lazy-sdk.js";
import { linkSignals } from "./abort.js";
import { TransportError, errorBody } from "./errors.js";
import { MAX_ANSWER_CHARS, answerInvalidParams, answerTooLarge, invalidParams, onePage } from "./mcp-jsonrpc.js";
import { StdioLink, serverIdentity, type ServerIdentity } from "./mcp-link.js";
import { maskOutgoing } from "./mcp-mask.js";
import { clientRoots } from "./mcp-roots.js";
import type { AnswerRoom } from "./outbox.js";
import { harnessSummary, harnessText, runsPrograms, slotsOf, type ServedPack, type ServeOptions } from "./packs.js";
import { isHttpResult, type HttpResult } from "../runtime/openapi/result.js";
import { failed, httpText, outcome, renderPlan } from "./render.js";
import { buildTools, listedLength, toolsListed, unknownToolHint, type ToolSelection, type VerbTool } from "./tools.js";
import { packShown, promptHarness, servedHarness } from "./served-harness.js";

export interface McpOptions extends ServeOptions, ToolSelection {
  /** Aborting (SIGINT, SIGTERM, a closed stdout) cancels the calls in flight, answers them, and ends the server. */
  signal?: AbortSignal;
  /** The server version reported at initialize. */
  version: string;
  /** Never ask the client to approve (`--no-elicitation`): its answer is the person's only where the person runs it. */
  noElicitation?: boolean;
  /** Warnings about what is served (pack issues, packs left out), sent to the client as log messages. */
  warnings?: readonly string[];
  /** The server's own secrets (the HTTP server's bearer token), masked in all it sends as the packs' are. */
  serverSecrets?: readonly string[];
}

/** The secrets of what a server serves, its own included: everything it sends is masked with these. */
export function servedSecrets(packs: readonly ServedPack[], opts: McpOptions): SecretSet {
  return packSecrets(packs, process.env, undefined, opts.serverSecrets);
}

/** Where the HTTP transport puts the client's address in a request's authInfo.extra, for the audit log. */
export const CLIENT_ADDRESS = "client_address";

/** The request's extra a call needs (the SDK's RequestHandlerExtra): progress, its id, the HTTP client's address. */
interface CallExtra {
  _meta?: { progressToken?: string | number };
  requestId: string | number;
  authInfo?: { extra?: Record<string, unknown> };
  sendNotification: (n: ProgressNotification | LogNotification) => Promise<void>;
}

type ProgressNotification = { method: "notifications/progress"; params: { progressToken: string | number; progress: number; message: string } };
type LogNotification = { method: "notifications/message"; params: { level: "warning"; logger: string; data: string } };

/** MCP's log levels, least severe first. */
const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

const PROGRESS_EVERY_MS = 1000;

/**
 * Progress of a long call, when the request asked for it (a progressToken): at most once a second, the elapsed
 * time (as `progress`, in ms), the output bytes so far and the last line of stderr (masked) as the message.
 */
function progressOf(extra: CallExtra): { onOutput: (e: OutputEvent) => void; stop: () => void } | undefined {
  // oxlint-disable-next-line eslint/no-underscore-dangle -- the MCP field is named _meta
  const token = extra._meta?.progressToken;
  if (token === undefined) return undefined;
  const started = monotonicMs();
  let bytes = 0;
  let line = "";
  const timer = setInterval(() => {
    const ms = Math.round(monotonicMs() - started);
    const message = `running for ${(ms / 1000).toFixed(0)} s; ${bytes} bytes of output${line === "" ? "" : `; stderr: ${line}`}`;
    extra.sendNotification({ method: "notifications/progress", params: { progressToken: token, progress: ms, message } }).catch(() => {});
  }, PROGRESS_EVERY_MS);
  return {
    onOutput: (e) => {
      bytes = e.stdout_bytes + e.stderr_bytes;
      const last = e.stream === "stderr" ? e.text.split("\n").findLast((l) => l.trim() !== "") : undefined;
      if (last !== undefined) line = last.trim().slice(0, 200);
    },
    stop: () => clearInterval(timer),
  };
}

/** What a tools/call returns: a text block and the §6.5 result (or the plan) as structuredContent. */
interface ToolResult {
  [k: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The §6.5 (§6.7) result, or the plan, as structuredContent. Where stdout (a body) is one JSON value, it goes once, as
 * `json`, not again as the text it was: a client that gives the model structuredContent (Claude Code does) gave it both,
 * twice the tokens of every JSON answer, the text's quotes escaped besides.
 */
function structuredOf(r: ExecResult | HttpResult | DryRun): Record<string, unknown> {
  // Not where the text says more than a JavaScript client reads in `json` (a snowflake id it rounds, a key twice).
  if (isDryRun(r) || r.json === undefined || !readsAsWritten(isHttpResult(r) ? r.body : r.stdout)) return r as unknown as Record<string, unknown>;
  if (isHttpResult(r)) {
    const { body: _, ...rest } = r;
    return rest;
  }
  const { stdout: _, ...rest } = r;
  return rest;
}

/**
 * What the agent reads: the child's stdout as is, with its stderr and how it ended appended when it failed, or its
 * stderr when it succeeded printing nothing on stdout (rclone's check and a `--dry-run`'s preview say everything there);
 * a dry run's plan in words. The §6.5 result (or the plan) is the structuredContent (structuredOf).
 */
function resultOf(r: ExecResult | HttpResult | DryRun, writesAllowed: boolean, keeps?: number): ToolResult {
  const structuredContent = structuredOf(r);
  if (isDryRun(r)) return { content: [{ type: "text", text: renderPlan(r, "argument", writesAllowed) }], structuredContent };
  if (isHttpResult(r)) return { content: [{ type: "text", text: httpText(r) }], structuredContent, ...(failed(r) ? { isError: true } : {}) };
  const notes: string[] = [];
  // Cut, the output ends with its whole lines: a line cut short (a path half written) would read as a real one.
  const stdout = r.stdout_truncated ? wholeLines(r.stdout) : r.stdout;
  if (r.stdout_truncated) {
    const cap = keeps === undefined ? "" : ` (the verb keeps ${keeps} bytes of each stream)`;
    notes.push(`[stdout truncated: ${r.stdout_bytes} bytes written, the first ${Buffer.byteLength(stdout)} shown${cap}; narrow the call (a filter, a page, a path) for the rest]`);
  }
  const stderrNotes = () => {
    if (r.stderr !== "") notes.push(`[stderr]\n${r.stderr.replace(/\n$/, "")}`);
    if (r.stderr_truncated) notes.push(`[stderr truncated: ${r.stderr_bytes} bytes written, the rest dropped]`);
  };
  if (!failed(r)) {
    if (stdout !== "") return { content: [{ type: "text", text: notes.length === 0 ? stdout : endLine(stdout) + notes.join("\n") }], structuredContent };
    stderrNotes();
    return { content: [{ type: "text", text: notes.length === 0 ? "(no output)" : notes.join("\n") }], structuredContent };
  }
  stderrNotes();
  notes.push(`[${outcome(r)}]`);
  return { content: [{ type: "text", text: (stdout === "" ? "" : endLine(stdout)) + notes.join("\n") }], structuredContent, isError: true };
}

/** `text` ending with a line break: the notes after it start a line of their own. */
const endLine = (text: string): string => (text.endsWith("\n") ? text : `${text}\n`);

/** `text` up to its last line break; all of it when it has none (one long line is shown as cut). */
function wholeLines(text: string): string {
  const end = text.lastIndexOf("\n");
  return end < 0 ? text : text.slice(0, end + 1);
}

/** The one mapping of a failed call to MCP: an isError result carrying {error: {code, message}}. */
function errorResult(err: unknown): ToolResult {
  const error = errorBody(err);
  return { content: [{ type: "text", text: `Error: ${error.code}: ${error.message}` }], structuredContent: { error }, isError: true };
}

const uriOf = (pack: ServedPack) => `hcp://${pack.surface.id}/HARNESS.md`;

/**
 * The most tools of a pack the instructions name. A client puts the instructions before the agent with every turn: an
 * API's thousand tool names there (50 KB for GitHub's) would say again what tools/list says.
 */
const LISTED_TOOLS_MAX = 50;

/** What the instructions say of a pack's Skill: read it first, or, when long, what it holds and when to read it. */
function skillNote(pack: ServedPack, tools: readonly VerbTool[]): string {
  if (pack.harness === null) return "";
  const readFirst = ` Read ${uriOf(pack)} before using it.`;
  // The text loaded with the pack tells a short one without reading HARNESS.md again at start-up. Only a long one is
  // read and measured as served (without the sections of verbs not served, with a line more).
  if (Buffer.byteLength(pack.harness.body) <= SKILL_WHOLE_MAX_BYTES) return readFirst;
  const bytes = Buffer.byteLength(servedHarness(harnessText(pack) ?? pack.harness.body, pack, tools));
  if (bytes <= SKILL_WHOLE_MAX_BYTES) return readFirst;
  return ` Its Skill, ${uriOf(pack)}, is ${Math.round(bytes / 1024)} KiB, mostly a section per verb that gives what its tool's description and input schema give: read it only when they are not enough.`;
}

/**
 * Where a pack's programs run, for the agent: a CLI's verbs often act on their working folder (git's, a repository), which
 * is policy.json's `cwd`, else --cwd, else the one the client started the server in, and the agent cannot see it.
 */
function folderNote(pack: ServedPack, opts: ServeOptions): string {
  return runsPrograms(pack) ? ` Its verbs run in the folder ${JSON.stringify(workingFolder(pack, opts.cwd))}.` : "";
}

/** How a person approves a plan here, as the gate of each call will ask (mcpServer's `gate`), for the agent to tell them. */
function howApproved(opts: McpOptions): string {
  const terminal = "with `hcp approve <plan_id>` in a terminal";
  if ((opts.gate?.approvers.length ?? 0) > 0) return `asked by the operator's approver, else ${terminal}`;
  return opts.noElicitation === true ? `never in the client: ${terminal}` : `asked in the client when it can ask, else ${terminal}`;
}

/** The server instructions: how the tools behave, and each pack's Skill in one line. */
function instructionsOf(packs: readonly ServedPack[], tools: readonly VerbTool[], opts: McpOptions): string {
  const lines = [
    `hcp serves ${packs.length} HCP harness ${packs.length === 1 ? "pack" : "packs"}; each verb is a tool named <pack>_<verb>; a verb with no tool in tools/list is not served.`,
    opts.allowWrite ? "Write verbs may run." : "Write verbs are refused: this server was started without --allow-write.",
  ];
  // How to confirm, said only of the gates the served tools have: a read-only server's agent is not told of a confirm no tool takes.
  if (tools.some((t) => t.gated && t.policy.confirm !== "plan")) {
    lines.push(
      `Confirm-gated verbs: call with dry_run: true to get the plan and its plan_id. A person approves it (${howApproved(opts)}); then call again with confirm: <plan_id>. Each plan_id runs once.`,
    );
  }
  if (tools.some((t) => t.policy.confirm === "plan")) {
    lines.push("Plan-checked verbs: call with dry_run: true to get the plan and its plan_id, then again with the same arguments and confirm: <plan_id>; no person is asked. Each plan_id runs once.");
  }
  lines.push("Packs:");
  for (const pack of packs) {
    const names = tools.filter((t) => t.pack === pack).map((t) => t.name);
    const listed = names.length > LISTED_TOOLS_MAX ? `${names.length}, each named in tools/list` : names.join(", ") || "none";
    lines.push(`- ${pack.surface.id}: ${harnessSummary(pack)}${skillNote(pack, tools)}${folderNote(pack, opts)} Tools: ${listed}.`);
  }
  return lines.join("\n");
}

/** How long a person has to answer an elicitation. */
const ELICIT_TIMEOUT_MS = 10 * 60_000;

/** Most tools to compile ahead of their first call. */
const WARM_MAX = 512;

/**
 * Readies a connected server for its first tools/call, in the background. It starts hcp's watchdog when a tool runs a
 * program (any but an openapi pack's), which the first run would otherwise start: its spawn and its node start-up then
 * fell on the first calls (a call a second after start-up 39 against 19 ms, the next ones 15 against 10 ms, on 2 cores:
 * docs/performance.md). A watchdog that cannot start is left to the first run, which is refused naming it. Then it compiles the
 * tools' argument validators, one per turn of the event loop, so a first call does not wait for Ajv either: the same
 * compileSchema calls (and cache) the runtime makes on a call.
 */
export function warmUp(tools: readonly VerbTool[], signal: AbortSignal): void {
  setImmediate(() => {
    if (signal.aborted) return;
    if (tools.some((t) => t.pack.surface.kind !== "openapi")) {
      try {
        startWatchdog();
      } catch {
        // the first run refuses, naming it
      }
    }
    warmValidators(tools, signal);
  });
}

function warmValidators(tools: readonly VerbTool[], signal: AbortSignal): void {
  let i = 0;
  const next = () => {
    if (signal.aborted || i >= Math.min(tools.length, WARM_MAX)) return;
    const t = tools[i++]!;
    try {
      compileSchema(argsSchemaOf(t.pack, t.verb));
    } catch {
      // the call reports it
    }
    // Referenced: an unreferenced immediate waits for other I/O to wake the loop. The chain ends on its own.
    setImmediate(next);
  };
  setImmediate(next);
}

/** The SDK modules the server needs, loaded on demand (the SDK's root and client modules are not needed). */
export async function loadSdk() {
  const [server, types] = await Promise.all([sdkServerModule(), sdkTypesModule()]);
  return {
    Server: server.Server,
    parseMessage: (value: unknown) => types.JSONRPCMessageSchema.parse(value),
    isMessage: (value: unknown) => types.JSONRPCMessageSchema.safeParse(value).success,
    isInitializeRequest: types.isInitializeRequest,
    supportedVersions: types.SUPPORTED_PROTOCOL_VERSIONS,
    CallToolRequestSchema: types.CallToolRequestSchema,
    GetPromptRequestSchema: types.GetPromptRequestSchema,
    ListPromptsRequestSchema: types.ListPromptsRequestSchema,
    ListResourcesRequestSchema: types.ListResourcesRequestSchema,
    ListResourceTemplatesRequestSchema: types.ListResourceTemplatesRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    ReadResourceRequestSchema: types.ReadResourceRequestSchema,
    SetLevelRequestSchema: types.SetLevelRequestSchema,
    RootsListChangedNotificationSchema: types.RootsListChangedNotificationSchema,
  };
}

export type McpSdk = Awaited<ReturnType<typeof loadSdk>>;

/** What every transport serves: the tools, chosen once, and what the server says about itself. */
export interface ServedTools {
  packs: readonly ServedPack[];
  tools: readonly VerbTool[];
  /** The packs the instructions, resources and prompts speak of (not one whose every tool is hidden). */
  shown: readonly ServedPack[];
  identity: ServerIdentity;
}

export function servedOf(packs: readonly ServedPack[], opts: McpOptions): ServedTools {
  // A pack's text (a description, a default its CLI's help showed) may hold a credential: masked as all output is.
  const secrets = servedSecrets(packs, opts);
  // A tool's name and its arguments' names (properties' keys, `required`) are how the agent calls it: kept.
  const tools = buildTools(packs, opts).map((t) => ({ ...t, tool: { ...redactStrings(t.tool, secrets, ["required"]), name: t.tool.name } }));
  // A pack whose every tool the selection hides is not spoken of at all.
  const shown = packs.filter((p) => packShown(p, tools));
  return { packs, tools, shown, identity: serverIdentity(opts.version, redactText(instructionsOf(shown, tools, opts), secrets)) };
}


/** What a server's calls share with the transport that runs it. */
export interface ServerLife {
  /** Aborting cancels every call in flight (their children's groups are killed) and they are answered. */
  stop: AbortSignal;
  /** Aborting ends the elicitations still open: nobody is left to answer them. */
  unanswerable: AbortSignal;
  /** The calls in flight, so that the transport can wait until every one is answered. */
  running: Set<Promise<unknown>>;
  /** The plans a person declined in this session (a stdio server, an HTTP session): a declined plan cannot run in it again. */
  declined: ApprovalSession;
  /** The answers not yet taken by clients that may not read them (stdio, HTTP): a call starts only while there is room. */
  outbox?: AnswerRoom;
  /**
   * The transport drops an answer too long for one string without a word (the SDK's HTTP one sends an empty event
   * stream): tools/list checks its length first. The stdio link answers such an answer with the error itself.
   */
  dropsLongAnswers?: boolean;
  /**
   * The client's roots are taken as folders the agent works in (mcp-roots.ts): on stdio only, since they hold for
   * the whole process, and an HTTP server's clients would each add theirs to every other's.
   */
  learnsRoots?: boolean;
  /** Told of each tools/call as its handler starts, with the work that answers it (an HTTP session keeps its id taken until then). */
  onCall?: (requestId: string | number, task: Promise<unknown>) => void;
}

/** The SDK's Server with every handler (tools, resources, prompts): the one server code of every MCP transport. */
export function mcpServer(sdk: McpSdk, served: ServedTools, opts: McpOptions, life: ServerLife): InstanceType<McpSdk["Server"]> {
  const { packs, tools, identity } = served;
  const byName = new Map(tools.map((t) => [t.name, t]));
  const { Server, CallToolRequestSchema, GetPromptRequestSchema, ListPromptsRequestSchema, ListResourcesRequestSchema, ListResourceTemplatesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, RootsListChangedNotificationSchema, SetLevelRequestSchema } = sdk;
  const server = new Server(identity.serverInfo, { capabilities: identity.capabilities, instructions: identity.instructions });
  // A verb that prints files can print the server's own secrets (the token file its command line names).
  const secrets = () => servedSecrets(packs, opts);
  maskOutgoing(server, secrets);
  const { running } = life;
  // Each call in flight listens to the server's end (linkSignals): as many listeners as calls, by design.
  setMaxListeners(0, life.stop, life.unanswerable);

  /**
   * Asks the person in the client (elicitation), showing the plan with control and bidi characters escaped. The
   * request goes with the call's (over HTTP, on that call's stream).
   */
  const elicitation = (relatedRequestId: string | number): PersonApprover => ({
    by: "elicitation",
    async ask(request, signal) {
      // The elicitation follows the call's cancellation only while it is open: the SDK aborts a call's
      // signal when the call ends, and would then cancel an elicitation that was already answered.
      // The end of stdin ends it too: nobody is left to answer.
      const open = linkSignals(signal === undefined ? [life.unanswerable] : [signal, life.unanswerable]);
      try {
        const answer = await server.elicitInput(approvalQuestion(request), { signal: open.signal, timeout: ELICIT_TIMEOUT_MS, relatedRequestId });
        return approvalAnswer(answer);
      } finally {
        open.release();
      }
    },
  });
  /** The operator's --approver when given, else the client when it can elicit (unless --no-elicitation); else `hcp approve` (the gate says how). */
  const base = opts.gate ?? defaultGate(process.env);
  /** The gate when no person is asked in the client: the same for every call, made once. */
  const withoutElicitation: Gate = { ...base, approvers: base.approvers.length > 0 ? base.approvers : [], session: life.declined };
  function gate(requestId: string | number): Gate {
    if (opts.noElicitation === true || base.approvers.length > 0 || server.getClientCapabilities()?.elicitation?.form === undefined) return withoutElicitation;
    return { ...base, approvers: [elicitation(requestId)], session: life.declined };
  }
  /** Each pack's slots, gated on the outbox (stdio): made once per pack, not per call. */
  const gatedSlots = new Map<ServedPack, Limiter>();
  function slotsFor(pack: ServedPack): Limiter {
    const { outbox } = life;
    if (outbox === undefined) return slotsOf(pack);
    let slots = gatedSlots.get(pack);
    if (slots === undefined) gatedSlots.set(pack, (slots = outbox.gate(slotsOf(pack))));
    return slots;
  }

  async function call(t: VerbTool, input: Record<string, unknown>, signal: AbortSignal, extra: CallExtra): Promise<ToolResult> {
    const args = { ...input };
    let dryRun = false;
    let confirm: string | undefined;
    // The control arguments are the tool's own where its schema declares them. Elsewhere a verb may take an argument of
    // that name of its own (an API's parameter); else it is the control argument, which the runtime refuses for such a
    // verb, as on exec (unneeded-controls.ts).
    const ownArgument = (name: string) => Object.hasOwn((argsSchemaOf(t.pack, t.verb)["properties"] ?? {}) as object, name);
    if (t.previewable || !ownArgument("dry_run")) {
      const { dry_run } = args;
      delete args["dry_run"];
      if (dry_run !== undefined && typeof dry_run !== "boolean") throw new TransportError("invalid_request", "dry_run must be a boolean");
      dryRun = dry_run === true;
    }
    if (t.gated || !ownArgument("confirm")) {
      const { confirm: c } = args;
      delete args["confirm"];
      if (t.gated && c !== undefined && typeof c !== "string") throw new TransportError("invalid_request", "confirm must be a string (a plan_id)");
      confirm = c as string | undefined;
    }
    const client = extra.authInfo?.extra?.[CLIENT_ADDRESS];
    const run = { allowWrite: opts.allowWrite, cwd: opts.cwd, dryRun, signal, gate: gate(extra.requestId), transport: "mcp" as const, serverSecrets: opts.serverSecrets, ...(typeof client === "string" ? { clientAddress: client } : {}) };
    // While the client leaves its answers untaken, no call starts: not here, nor where a child waits for its slot.
    await life.outbox?.room(signal);
    // Nor before the client's roots are known: a program, an approver or hcp's own files may lie in them.
    await roots?.known();
    const slots = slotsFor(t.pack);
    const progress = progressOf(extra);
    let r: ExecResult | HttpResult | DryRun;
    try {
      r = await executeVerb(t.pack, t.verb, args, { ...run, confirm, onOutput: progress?.onOutput, slots, onWarning: (w) => warn(extra, `${t.name}: ${w}`) });
    } finally {
      progress?.stop();
    }
    if (!isDryRun(r) && !isHttpResult(r) && (r.stdout_truncated || r.stderr_truncated)) {
      warn(extra, `${t.name}: output past ${t.policy.max_output_bytes} bytes per stream was dropped (stdout ${r.stdout_bytes} bytes, stderr ${r.stderr_bytes} bytes)`);
    }
    return resultOf(r, opts.allowWrite === true, t.policy.max_output_bytes);
  }

  // One Server is one session (stdio, an HTTP session, a stateless request): the level its client set is this one.
  let logLevel = "debug";
  server.setRequestHandler(SetLevelRequestSchema, async (req) => {
    logLevel = req.params.level;
    return {};
  });
  /**
   * Sends a warning (the logging capability) unless the client set a higher level. A call's warning goes with the call
   * (over HTTP, on the stream that carries its answer: a stateless server has no other).
   */
  function warn(extra: CallExtra | undefined, data: string): void {
    if (LOG_LEVELS.indexOf(logLevel) > LOG_LEVELS.indexOf("warning")) return;
    const message: LogNotification = { method: "notifications/message", params: { level: "warning", logger: "hcp", data } };
    (extra === undefined ? server.notification(message) : extra.sendNotification(message)).catch(() => {});
  }

  server.setRequestHandler(ListToolsRequestSchema, async (req) => {
    onePage(req.params);
    // Only where the transport would drop it: the length costs a serialisation of the list (34 ms for GitHub's).
    if (life.dropsLongAnswers === true && listedLength(tools) > MAX_ANSWER_CHARS) throw answerTooLarge();
    return toolsListed(tools);
  });
  // Set as every other method's handler is (its request parsed once): the SDK's Server wraps a tools/call handler
  // to parse the request again and to check and copy the result against its schema, a tenth of a call's own work
  // in the server. hcp's results are made to that schema (the SDK's Client checks each one in the tests), and
  // tools/call with a task was refused before either runs (hcp offers no tasks).
  const setRequestHandler: typeof server.setRequestHandler = Object.getPrototypeOf(Server.prototype).setRequestHandler;
  setRequestHandler.call(server, CallToolRequestSchema, async (req, extra) => {
    const t = byName.get(req.params.name);
    if (t === undefined) throw maskError(invalidParams(`unknown tool ${JSON.stringify(req.params.name)} (${unknownToolHint(req.params.name, [...byName.keys()])})`), secrets());
    // Cancelled by the client or by the server's stop, until it is answered.
    const cancel = linkSignals([extra.signal, life.stop]);
    // The runtime masks what it throws; the transport's own errors are masked with every pack's secrets.
    const task = call(t, req.params.arguments ?? {}, cancel.signal, extra as CallExtra).catch((err: unknown) => errorResult(maskError(err, secrets())));
    running.add(task);
    life.onCall?.(extra.requestId, task);
    try {
      return await task;
    } finally {
      running.delete(task);
      cancel.release();
    }
  });
  const withHarness = served.shown.filter((p) => p.harness !== null);
  /** HARNESS.md as this server serves it: only the verbs it serves (served-harness.ts). */
  const harnessOf = (pack: ServedPack | undefined) => {
    const text = pack === undefined ? undefined : harnessText(pack);
    return text === undefined ? undefined : redactText(servedHarness(text, pack!, tools), secrets());
  };
  const summaryOf = (pack: ServedPack) => redactText(harnessSummary(pack), secrets());
  server.setRequestHandler(ListResourcesRequestSchema, async (req) => {
    onePage(req.params);
    const resources = withHarness.map((p) => {
      const text = harnessOf(p);
      // Its size lets the client tell what reading it costs (MCP's Resource.size, in bytes).
      return { uri: uriOf(p), name: `${p.surface.id} HARNESS.md`, description: summaryOf(p), mimeType: "text/markdown", ...(text !== undefined && { size: Buffer.byteLength(text) }) };
    });
    return { resources };
  });
  // The resources capability covers templates too; hcp has none.
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async (req) => {
    onePage(req.params);
    return { resourceTemplates: [] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async (req) => {
    onePage(req.params);
    return { prompts: withHarness.map((p) => ({ name: p.surface.id, title: redactText(`${p.surface.name ?? p.surface.id}: HARNESS.md`, secrets()), description: summaryOf(p) })) };
  });
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const pack = withHarness.find((p) => p.surface.id === req.params.name);
    const text = harnessOf(pack);
    if (text === undefined) throw invalidParams(`no prompt ${JSON.stringify(req.params.name)}`);
    return { description: summaryOf(pack!), messages: [{ role: "user" as const, content: { type: "text" as const, text: promptHarness(text, uriOf(pack!)) } }] };
  });
  /** What the client's roots hold, told to the operator (stderr) and the client's log. */
  const warnBoth = (w: string) => {
    process.stderr.write(`Warning: ${w}\n`);
    warn(undefined, w);
  };
  const roots = life.learnsRoots === true ? clientRoots(server, packs, warnBoth, life.stop) : undefined;
  // oxlint-disable-next-line unicorn/prefer-add-event-listener
  server.oninitialized = () => {
    for (const w of opts.warnings ?? []) warn(undefined, w);
    // Asked now, so that the first call need not wait: once `initialize` is handled too (known() asks otherwise).
    if (roots !== undefined) setImmediate(() => roots.ask());
  };
  server.setNotificationHandler(RootsListChangedNotificationSchema, () => roots?.ask(true));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const text = harnessOf(withHarness.find((p) => uriOf(p) === req.params.uri));
    // -32602, as MCP settles it (SEP-2164); older revisions suggested -32002.
    if (text === undefined) throw invalidParams(`no resource ${JSON.stringify(req.params.uri)}`);
    return { contents: [{ uri: req.params.uri, mimeType: "text/markdown", text }] };
  });
  answerInvalidParams(server);

  return server;
}

/**
 * Serves until stdin ends (calls in flight finish and are answered) or opts.signal aborts (they are cancelled, their
 * children's groups killed, and answered); every answer is written before it returns.
 */
export async function serveMcp(packs: readonly ServedPack[], opts: McpOptions): Promise<void> {
  const served = servedOf(packs, opts);
  // Read stdin now: `initialize` and `tools/list` are answered without waiting for the SDK (see mcp-link.ts).
  const link = new StdioLink(served.identity, toolsListed(served.tools));
  await link.needsSdk;
  const sdk = await loadSdk();
  const session = new AbortController();
  const atEof = new AbortController();
  const running = new Set<Promise<unknown>>();
  // One stdio server is one session: a plan the person declines here cannot run here again.
  const server = mcpServer(sdk, served, opts, { stop: session.signal, unanswerable: atEof.signal, running, declined: new ApprovalSession(), outbox: link.outbox, learnsRoots: true });
  // The end: stdin's (calls in flight finish), a stop signal's (they are cancelled), or the SDK's own closing.
  const stopped = new Promise<void>((resolve) => {
    if (opts.signal?.aborted) resolve();
    opts.signal?.addEventListener("abort", () => resolve(), { once: true });
  });
  const closed = new Promise<void>((resolve) => {
    // The SDK's Protocol reports its closing only through this property.
    // oxlint-disable-next-line unicorn/prefer-add-event-listener
    server.onclose = resolve;
  });
  await server.connect(link.attach(sdk.parseMessage));
  warmUp(served.tools, session.signal);
  await Promise.race([link.eof, stopped, closed]);
  let giveUp = opts.signal?.aborted === true;
  if (!giveUp) {
    // The end of stdin: nobody is left to answer an elicitation; what was read is still handled and answered, unless
    // a stop signal comes or the client takes none of its answers for a while (then nothing would ever get them).
    atEof.abort();
    const over = new AbortController();
    const stalled = link.outbox.whenStalled(over.signal).then(() => true);
    giveUp = await Promise.race([link.idle().then(() => false), closed.then(() => false), stopped.then(() => true), stalled]);
    over.abort();
  }
  if (giveUp) {
    // Every call is cancelled (its children killed) and answered; requests read but not yet taken in are not.
    session.abort();
    link.drop();
  }
  // Every call is answered, cancelled ones too, before the server closes.
  await Promise.race([link.idle(), closed]);
  await Promise.allSettled(running);
  await server.close();
}
