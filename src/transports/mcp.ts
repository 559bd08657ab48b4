// The `mcp` transport: a stdio MCP server (the SDK's low-level Server) exposing verbs as tools and HARNESS.md as resources.
// The SDK (with zod and Ajv) costs a few hundred ms to load, so it is imported only once `initialize` is answered:
// StdioLink reads stdin from the start, answers a well-formed `initialize` itself — exactly as the SDK would — and
// hands every message, that one included, to the SDK's Server once it is loaded, dropping its duplicate answer.

import type { ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { stableJSON } from "../json/stable.js";
import { compileSchema } from "../pack/schema.js";
import { argsSchemaOf, executeVerb, isDryRun, planVerb, type DryRun, type ExecResult } from "../runtime/execute.js";
import { TransportError, errorBody } from "./errors.js";
import { harnessSummary, harnessText, type ServedPack, type ServeOptions } from "./packs.js";
import { failed, planDetails, planSubject } from "./render.js";
import { buildTools, type VerbTool } from "./tools.js";

export interface McpOptions extends ServeOptions {
  /** The server version reported at initialize. */
  version: string;
}

/** What a tools/call returns: a text block and the §6.5 result (or the plan) as structuredContent. */
interface ToolResult {
  [k: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

function resultOf(r: ExecResult | DryRun): ToolResult {
  const out: ToolResult = { content: [{ type: "text", text: stableJSON(r) }], structuredContent: r as unknown as Record<string, unknown> };
  if (!isDryRun(r) && failed(r)) out.isError = true;
  return out;
}

/** The one mapping of a failed call to MCP: an isError result carrying {error: {code, message}}. */
function errorResult(err: unknown): ToolResult {
  const error = errorBody(err);
  return { content: [{ type: "text", text: `Error: ${error.code}: ${error.message}` }], structuredContent: { error }, isError: true };
}

const uriOf = (pack: ServedPack) => `hcp://${pack.surface.id}/HARNESS.md`;

/** The server instructions: how the tools behave, and each pack's Skill in one line. */
export function instructionsOf(packs: readonly ServedPack[], tools: readonly VerbTool[], opts: ServeOptions): string {
  const lines = [
    `hcp serves ${packs.length} HCP harness pack(s); each verb is a tool named <pack>_<verb>.`,
    opts.allowWrite ? "Write verbs may run." : "Write verbs are refused: this server was started without --allow-write.",
    "Confirm-gated verbs: call with dry_run: true to get the plan and its plan_id, then call again with confirm: <plan_id>, or approve when asked.",
    "Packs:",
  ];
  for (const pack of packs) {
    const names = tools.filter((t) => t.pack === pack).map((t) => t.name);
    // harnessText(pack) is defined exactly when the pack has a harness; no need to read HARNESS.md again here.
    const skill = pack.harness !== null ? ` Read ${uriOf(pack)} before using it.` : "";
    lines.push(`- ${pack.surface.id}: ${harnessSummary(pack)}${skill} Tools: ${names.join(", ") || "none"}.`);
  }
  return lines.join("\n");
}

/** Most tools to compile ahead of their first call. */
const WARM_MAX = 512;

/**
 * Compiles the tools' argument validators in the background, one per turn of the event loop, so a first
 * tools/call does not wait for Ajv: the same compileSchema calls (and cache) the runtime makes on a call.
 */
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
async function loadSdk() {
  const [server, types, stdio] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/types.js"),
    import("@modelcontextprotocol/sdk/shared/stdio.js"),
  ]);
  return {
    Server: server.Server,
    ReadBuffer: stdio.ReadBuffer,
    CallToolRequestSchema: types.CallToolRequestSchema,
    ErrorCode: types.ErrorCode,
    ListResourcesRequestSchema: types.ListResourcesRequestSchema,
    ListToolsRequestSchema: types.ListToolsRequestSchema,
    McpError: types.McpError,
    ReadResourceRequestSchema: types.ReadResourceRequestSchema,
  };
}

/** The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS (a test keeps them equal), for answering `initialize` early. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

/** What the server says about itself at `initialize`: the same objects are given to the SDK's Server. */
export interface ServerIdentity {
  serverInfo: { name: string; version: string };
  capabilities: { tools: Record<string, never>; resources: Record<string, never> };
  instructions: string;
}

export function serverIdentity(version: string, instructions: string): ServerIdentity {
  return { serverInfo: { name: "hcp", version }, capabilities: { tools: {}, resources: {} }, instructions };
}

type Json = Record<string, unknown>;
const isPlain = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const isOptional = (v: unknown, check: (x: unknown) => boolean) => v === undefined || check(v);
const isString = (v: unknown) => typeof v === "string";
const isBoolean = (v: unknown) => typeof v === "boolean";
const allPlain = (v: unknown) => isPlain(v) && Object.values(v).every(isPlain);

/** Client capabilities the SDK's ClientCapabilitiesSchema surely accepts (anything unusual, such as tasks, is left to it). */
function plainCapabilities(c: unknown): boolean {
  if (!isPlain(c)) return false;
  const { experimental, extensions, sampling, elicitation, roots, tasks } = c;
  if (tasks !== undefined) return false;
  if (!isOptional(experimental, allPlain) || !isOptional(extensions, allPlain)) return false;
  if (!isOptional(sampling, (s) => isPlain(s) && isOptional(s["context"], isPlain) && isOptional(s["tools"], isPlain))) return false;
  if (!isOptional(roots, (r) => isPlain(r) && isOptional(r["listChanged"], isBoolean))) return false;
  const form = (f: unknown) => isPlain(f) && isOptional(f["applyDefaults"], isBoolean);
  return isOptional(elicitation, (e) => isPlain(e) && isOptional(e["form"], form) && isOptional(e["url"], isPlain));
}

/**
 * The SDK Server's answer to `initialize` (Server._oninitialize), for a request whose shape its schemas surely
 * accept: a strict JSON-RPC request with exactly protocolVersion, capabilities and clientInfo as params.
 * Null for anything else, which the SDK answers itself once loaded.
 */
export function earlyInitialize(message: unknown, identity: ServerIdentity): { result: Json; jsonrpc: "2.0"; id: string | number } | null {
  if (!isPlain(message) || message["method"] !== "initialize" || message["jsonrpc"] !== "2.0") return null;
  const { id, params } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return null;
  if (Object.keys(message).some((k) => k !== "jsonrpc" && k !== "id" && k !== "method" && k !== "params")) return null;
  if (!isPlain(params) || Object.keys(params).length !== 3) return null;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== "string" || !plainCapabilities(capabilities) || !isPlain(clientInfo)) return null;
  const { name, version, title, websiteUrl, description, icons } = clientInfo;
  if (!isString(name) || !isString(version) || icons !== undefined) return null;
  if (!isOptional(title, isString) || !isOptional(websiteUrl, isString) || !isOptional(description, isString)) return null;
  const result: Json = {
    protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(protocolVersion) ? protocolVersion : LATEST_PROTOCOL_VERSION,
    capabilities: identity.capabilities,
    serverInfo: identity.serverInfo,
    ...(identity.instructions && { instructions: identity.instructions }),
  };
  return { result, jsonrpc: "2.0", id: id as string | number };
}

/** How long to wait for the first message before loading the SDK anyway. */
const FIRST_MESSAGE_WAIT_MS = 25;

/**
 * The stdio transport (the SDK's StdioServerTransport, same framing and behaviour) reading from construction:
 * before `attach` it keeps the input, answers a well-formed first `initialize` itself, and resolves
 * `firstMessage` once the first line has arrived (or stdin ended, or a short wait passed). `attach` hands
 * the kept input to the SDK in the order read; the SDK's own answer to that `initialize` is dropped.
 */
export class StdioLink implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Whether stdin ended before `attach`. */
  ended = false;
  readonly firstMessage: Promise<void>;
  private kept: Buffer[] = [];
  private readBuffer: ReadBuffer | undefined;
  private answered: { id: string | number } | undefined;
  private settle!: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly identity: ServerIdentity,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {
    this.firstMessage = new Promise<void>((resolve) => (this.settle = resolve));
    this.timer = setTimeout(() => this.settle(), FIRST_MESSAGE_WAIT_MS);
    stdin.on("data", this.ondata);
    stdin.on("error", this.onstdinerror);
    stdin.once("end", this.onend);
  }

  /** The transport for the SDK's Server, with its ReadBuffer; connecting starts it. */
  attach(ReadBufferClass: new () => ReadBuffer): this {
    this.readBuffer = new ReadBufferClass();
    return this;
  }

  async start(): Promise<void> {
    clearTimeout(this.timer);
    this.stdin.off("end", this.onend);
    const kept = this.kept;
    this.kept = [];
    for (const chunk of kept) this.ondata(chunk);
  }

  private readonly onend = () => {
    this.ended = true;
    this.settle();
  };

  private readonly onstdinerror = (error: Error) => {
    // Before the SDK is attached nobody listens (the SDK's Server has no onerror set either).
    this.onerror?.(error);
  };

  private readonly ondata = (chunk: Buffer) => {
    const buffer = this.readBuffer;
    if (buffer === undefined) {
      this.keep(chunk);
      return;
    }
    try {
      buffer.append(chunk);
      this.processReadBuffer(buffer);
    } catch (error) {
      this.onerror?.(error as Error);
      this.close().catch(() => {});
    }
  };

  private firstSeen = false;

  /** Keeps a chunk read before the SDK is attached; answers the first line if it is a well-formed `initialize`. */
  private keep(chunk: Buffer): void {
    this.kept.push(chunk);
    if (this.firstSeen) return;
    const all = this.kept.length === 1 ? chunk : Buffer.concat(this.kept);
    const end = all.indexOf(10);
    if (end === -1) return;
    this.firstSeen = true;
    this.answer(all.toString("utf8", 0, end).replace(/\r$/, ""));
    this.settle();
  }

  private answer(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return;
    }
    const response = earlyInitialize(message, this.identity);
    if (response === null) return;
    this.answered = { id: response.id };
    this.stdout.write(JSON.stringify(response) + "\n");
  }

  private processReadBuffer(buffer: ReadBuffer): void {
    while (true) {
      try {
        const message = buffer.readMessage();
        if (message === null) break;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.stdin.off("data", this.ondata);
    this.stdin.off("error", this.onstdinerror);
    this.stdin.off("end", this.onend);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.readBuffer?.clear();
    this.kept = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    // The SDK's answer to the `initialize` already answered: the same result, so it is not sent twice.
    if (this.answered !== undefined && "id" in message && message.id === this.answered.id && !("method" in message)) {
      this.answered = undefined;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      if (this.stdout.write(JSON.stringify(message) + "\n")) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}

/** Serves until stdin closes or SIGTERM/SIGINT; then every running child's process group is killed. */
export async function serveMcp(packs: readonly ServedPack[], opts: McpOptions): Promise<void> {
  const tools = buildTools(packs, opts);
  const byName = new Map(tools.map((t) => [t.name, t]));
  const identity = serverIdentity(opts.version, instructionsOf(packs, tools, opts));
  // Read stdin now and answer `initialize` while the SDK loads.
  const link = new StdioLink(identity);
  await link.firstMessage;
  const { Server, ErrorCode, McpError, CallToolRequestSchema, ListResourcesRequestSchema, ListToolsRequestSchema, ReadResourceRequestSchema, ReadBuffer } = await loadSdk();
  const server = new Server(identity.serverInfo, { capabilities: identity.capabilities, instructions: identity.instructions });
  const session = new AbortController();
  const running = new Set<Promise<unknown>>();

  /** Asks the person to approve the plan (the client can elicit); throws confirmation_declined unless accepted. */
  async function approve(d: DryRun, signal: AbortSignal): Promise<void> {
    const message = [`Approve running ${planSubject(d)}?`, ...planDetails(d)].join("\n");
    const answer = await server.elicitInput({ mode: "form", message, requestedSchema: { type: "object", properties: {} } }, { signal });
    if (answer.action !== "accept") {
      throw new TransportError("confirmation_declined", `${planSubject(d)} was not approved (${answer.action}); nothing was run`);
    }
  }

  async function call(t: VerbTool, input: Record<string, unknown>, signal: AbortSignal): Promise<ToolResult> {
    const args = { ...input };
    let dryRun = false;
    let confirm: string | undefined;
    if (t.gated) {
      const { dry_run, confirm: c } = args;
      delete args["dry_run"];
      delete args["confirm"];
      if (dry_run !== undefined && typeof dry_run !== "boolean") throw new TransportError("invalid_request", "dry_run must be a boolean");
      if (c !== undefined && typeof c !== "string") throw new TransportError("invalid_request", "confirm must be a string (a plan_id)");
      dryRun = dry_run === true;
      confirm = c;
    }
    const run = { allowWrite: opts.allowWrite, dryRun, signal };
    if (t.gated && !dryRun && confirm === undefined && server.getClientCapabilities()?.elicitation?.form !== undefined) {
      const planned = planVerb(t.pack, t.verb, args, run);
      await approve(planned, signal);
      confirm = planned.plan_id;
    }
    return resultOf(await executeVerb(t.pack, t.verb, args, { ...run, confirm }));
  }

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.map((t) => t.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
    const t = byName.get(req.params.name);
    if (t === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool ${JSON.stringify(req.params.name)}`);
    const signal = AbortSignal.any([extra.signal, session.signal]);
    const task = call(t, req.params.arguments ?? {}, signal).catch(errorResult);
    running.add(task);
    try {
      return await task;
    } finally {
      running.delete(task);
    }
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: packs
      .filter((p) => p.harness !== null)
      .map((p) => ({ uri: uriOf(p), name: `${p.surface.id} HARNESS.md`, description: harnessSummary(p), mimeType: "text/markdown" })),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (req) => {
    const pack = packs.find((p) => uriOf(p) === req.params.uri);
    const text = pack === undefined ? undefined : harnessText(pack);
    if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `no resource ${JSON.stringify(req.params.uri)}`);
    return { contents: [{ uri: req.params.uri, mimeType: "text/markdown", text }] };
  });

  const closed = new Promise<void>((resolve) => {
    const stop = () => resolve();
    // stdin may have ended while the SDK loaded; its messages are still handed over first.
    if (link.ended) stop();
    process.stdin.once("end", stop);
    process.stdin.once("close", stop);
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    // The SDK's Protocol reports its closing only through this property.
    // oxlint-disable-next-line unicorn/prefer-add-event-listener
    server.onclose = stop;
  });
  await server.connect(link.attach(ReadBuffer));
  // Let the handlers of messages read while the SDK loaded start before an early end is acted on.
  await new Promise<void>((resolve) => setImmediate(resolve));
  warmValidators(tools, session.signal);
  await closed;
  session.abort();
  await Promise.allSettled(running);
  await server.close();
}
