// The stdio link of the MCP server. The SDK (with zod and Ajv) costs a few hundred ms to load, so
// StdioLink reads stdin from the start and, until a message needs the SDK, answers a well-formed
// `initialize` and then `tools/list` itself — exactly as the SDK would (tests hold the answers equal).
// It hands every other message, the `initialize` included, to the SDK's Server once it is loaded,
// dropping the SDK's duplicate answer to `initialize`.
// It frames the stream itself so that nothing goes unanswered: a frame over the SDK's 10 MiB limit and an
// invalid request carrying an id get a JSON-RPC error (where the SDK's transport drops them, or exits), and
// it counts the requests still unanswered, so that shutdown can wait until every one is, and so that the client cannot
// make the server hold more of them than it can keep in memory: past a bound, a request is refused at once. Its answers
// go through an Outbox: while the client leaves too many of them untaken, no new line is taken (outbox.ts).

import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { compactJSON } from "../json/stable.js";
import { isObject } from "../pack/issues.js";
import { Intake } from "./intake.js";
import type { Line } from "./lines.js";
import { BATCH_REFUSED, DUPLICATE_ID_REFUSED, TOO_LARGE_ERROR } from "./mcp-jsonrpc.js";
import { REFUSAL_CODES } from "./mcp-refusal.js";
import { Outbox } from "./outbox.js";

/** The SDK's LATEST_PROTOCOL_VERSION and SUPPORTED_PROTOCOL_VERSIONS (a test keeps them equal), for answering `initialize` early. */
export const LATEST_PROTOCOL_VERSION = "2025-11-25";
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [LATEST_PROTOCOL_VERSION, "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];

/** What the server says about itself at `initialize`: the same objects are given to the SDK's Server. */
export interface ServerIdentity {
  serverInfo: { name: string; version: string };
  capabilities: { tools: Record<string, never>; resources: Record<string, never>; prompts: Record<string, never>; logging: Record<string, never> };
  instructions: string;
}

export function serverIdentity(version: string, instructions: string): ServerIdentity {
  return { serverInfo: { name: "hcp", version }, capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} }, instructions };
}

type Json = Record<string, unknown>;
/**
 * A message as one line of JSON (compactJSON: a result's numbers keep their literal, §6.5). An answer too long for
 * one string (the tools/list of Microsoft Graph's 11,422 tools) is a JSON-RPC error to its request instead of a
 * RangeError that ends the server with its calls in flight.
 */
export function messageLine(message: unknown): string {
  try {
    return compactJSON(message);
  } catch (err) {
    if (!(err instanceof RangeError)) throw err;
    const id = isObject(message) && isId(message["id"]) ? message["id"] : null;
    return compactJSON({ jsonrpc: "2.0", id, error: TOO_LARGE_ERROR });
  }
}

const isOptional = (v: unknown, check: (x: unknown) => boolean) => v === undefined || check(v);
const isString = (v: unknown) => typeof v === "string";
const isBoolean = (v: unknown) => typeof v === "boolean";
const allPlain = (v: unknown) => isObject(v) && Object.values(v).every(isObject);

/** Client capabilities the SDK's ClientCapabilitiesSchema surely accepts (anything unusual, such as tasks, is left to it). */
function plainCapabilities(c: unknown): boolean {
  if (!isObject(c)) return false;
  const { experimental, extensions, sampling, elicitation, roots, tasks } = c;
  if (tasks !== undefined) return false;
  if (!isOptional(experimental, allPlain) || !isOptional(extensions, allPlain)) return false;
  if (!isOptional(sampling, (s) => isObject(s) && isOptional(s["context"], isObject) && isOptional(s["tools"], isObject))) return false;
  if (!isOptional(roots, (r) => isObject(r) && isOptional(r["listChanged"], isBoolean))) return false;
  const form = (f: unknown) => isObject(f) && isOptional(f["applyDefaults"], isBoolean);
  return isOptional(elicitation, (e) => isObject(e) && isOptional(e["form"], form) && isOptional(e["url"], isObject));
}

/**
 * The SDK Server's answer to `initialize` (Server._oninitialize), for a request whose shape its schemas surely
 * accept: a strict JSON-RPC request with exactly protocolVersion, capabilities and clientInfo as params.
 * Null for anything else, which the SDK answers itself once loaded.
 */
export function earlyInitialize(message: unknown, identity: ServerIdentity): { result: Json; jsonrpc: "2.0"; id: string | number } | null {
  if (!isObject(message) || message["method"] !== "initialize" || message["jsonrpc"] !== "2.0") return null;
  const { id, params } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return null;
  if (Object.keys(message).some((k) => k !== "jsonrpc" && k !== "id" && k !== "method" && k !== "params")) return null;
  if (!isObject(params) || Object.keys(params).length !== 3) return null;
  const { protocolVersion, capabilities, clientInfo } = params;
  if (typeof protocolVersion !== "string" || !plainCapabilities(capabilities) || !isObject(clientInfo)) return null;
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

/** The tools/list result the SDK's Server answers with (the result of its handler, as is). */
export interface ToolsListed {
  tools: readonly unknown[];
}

/**
 * The SDK Server's answer to `tools/list` (its handler's result, unchanged), for a strict JSON-RPC request
 * without params or with empty params. Null for anything else, which the SDK answers itself once loaded.
 */
export function earlyToolsList(message: unknown, listed: ToolsListed): { result: ToolsListed; jsonrpc: "2.0"; id: string | number } | null {
  if (!isObject(message) || message["method"] !== "tools/list" || message["jsonrpc"] !== "2.0") return null;
  const { id, params } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return null;
  if (Object.keys(message).some((k) => k !== "jsonrpc" && k !== "id" && k !== "method" && k !== "params")) return null;
  if (params !== undefined && !(isObject(params) && Object.keys(params).length === 0)) return null;
  return { result: listed, jsonrpc: "2.0", id: id as string | number };
}

/**
 * What the tools/call requests taken in one turn of the event loop may weigh. A call's child starts, and its output is
 * answered, only once the outbox has room (mcp.ts, GatedSlots); what a call may answer without a slot (a refusal, a dry
 * run's plan) is about as long as its request, so a turn's calls add answers of about this much unseen. Taking the
 * calls that arrive together in one turn, rather than each in a turn of its own, spares the server a turn of the event
 * loop per call, and the runs that start together share the reads of the process tree (descendants.ts).
 */
export const TURN_BYTES = 64 * 1024;

/** How long input may stay quiet, while nothing needs the SDK, before it is loaded anyway. */
const QUIET_MS = 25;

/** The SDK's STDIO_DEFAULT_MAX_BUFFER_SIZE: a longer frame is answered with an error and dropped as it arrives. */
export const MAX_FRAME_BYTES = 10 * 1024 * 1024;

/**
 * What the requests still unanswered may weigh together: each weighs its frame's length plus REQUEST_WEIGHT (what the
 * server keeps for a call in flight besides its arguments, about 12 KiB measured). The client chooses how many calls
 * it sends and how big: without a bound a stream of queued calls (a few hundred of 9 MiB, or a million small ones)
 * fills the heap, and a server that dies of it leaves its children running. 64 MiB: 4,096 small calls, or 7 of 9 MiB.
 */
export const MAX_PENDING_WEIGHT = 64 * 1024 * 1024;
const REQUEST_WEIGHT = 16 * 1024;

/** What a line handed to the SDK: nothing to answer, a tools/call, or another request. */
type Handed = "none" | "call" | "request";

/** Checks a parsed value is a JSON-RPC message (the SDK's JSONRPCMessageSchema.parse); throws when not. */
export type ParseMessage = (value: unknown) => JSONRPCMessage;

type Id = string | number;
const isId = (v: unknown): v is Id => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));
const ID_TOKEN = String.raw`(-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|"(?:[^"\\]|\\.)*")`;
/** An id as the first member (or second, after jsonrpc) of the top-level object, or as its last member. */
const ID_AT_HEAD = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"[^"]*"\s*,\s*)?"id"\s*:\s*${ID_TOKEN}\s*[,}]`);
const ID_AT_TAIL = new RegExp(String.raw`,\s*"id"\s*:\s*${ID_TOKEN}\s*\}\s*$`);

/** The id of a frame too long to parse, when its first or last bytes show it; undefined otherwise. */
export function idOfOversized(head: string, tail: string): Id | undefined {
  const token = ID_AT_HEAD.exec(head)?.[1] ?? ID_AT_TAIL.exec(tail)?.[1];
  if (token === undefined) return undefined;
  const id: unknown = JSON.parse(token);
  return isId(id) ? id : undefined;
}

/** The ids an invalid message carries (one per batch element); [undefined] when it has none; [] for a response. */
function idsOf(value: unknown): (Id | undefined)[] {
  if (Array.isArray(value)) {
    const ids = value.flatMap((v) => (isObject(v) && isId(v["id"]) ? [v["id"]] : []));
    return ids.length > 0 ? ids : [undefined];
  }
  if (isObject(value) && !("method" in value) && ("result" in value || "error" in value)) return [];
  return [isObject(value) && isId(value["id"]) ? value["id"] : undefined];
}

/**
 * The stdio transport (the SDK's StdioServerTransport's framing, newline-delimited JSON) reading from construction.
 * Before the SDK is needed it answers a well-formed first `initialize` itself (and keeps it for the SDK), then
 * keeps `notifications/initialized` and answers well-formed `tools/list` requests; `needsSdk` resolves at the
 * first other line, at the end of stdin, or once input has been quiet for a short while. `start` hands the kept
 * input to the SDK in the order read; the SDK's own answer to that `initialize` is dropped.
 * Lines are taken from the intake only while the client takes its answers (the outbox's backlog is within its bound)
 * and, once the SDK is needed, only after it has started. A request other than tools/call is taken alone: its answer
 * (when the SDK has it at once) is written before the next line is taken, so that a chunk of cheap requests with large
 * answers (tools/list) cannot pile answers up unseen. tools/call requests are taken together, up to TURN_BYTES of them
 * in one turn of the event loop (see there).
 */
export class StdioLink implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Whether stdin has ended (lines read before its end may still wait to be handled). */
  ended = false;
  readonly needsSdk: Promise<void>;
  /** Resolves when stdin ends. */
  readonly eof: Promise<void>;
  /** The answers written and not yet taken by the client. */
  readonly outbox: Outbox;
  private kept: Line[] = [];
  private readonly intake: Intake;
  private parse: ParseMessage | undefined;
  private started = false;
  private closed = false;
  private answered: { id: Id } | undefined;
  /** Until the SDK is needed: lines are answered or kept here. */
  private early = true;
  /** Requests handed to the SDK and not answered yet, with their weight (see MAX_PENDING_WEIGHT). */
  private readonly pending = new Map<Id, number>();
  private pendingWeight = 0;
  private idleWaiters: (() => void)[] = [];
  /** Whether the pump waits for room in the outbox, or for the next turn of the event loop. */
  private waiting = false;
  private settle!: () => void;
  private reachEof!: () => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly identity: ServerIdentity,
    private readonly listed: ToolsListed,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    stdout: NodeJS.WritableStream = process.stdout,
    /** How long input may stay quiet before the SDK is loaded anyway (a test that must not race it sets it long). */
    quietMs = QUIET_MS,
  ) {
    this.needsSdk = new Promise<void>((resolve) => (this.settle = resolve));
    this.eof = new Promise<void>((resolve) => (this.reachEof = resolve));
    this.outbox = new Outbox(stdout);
    this.timer = setTimeout(() => this.wantSdk(), quietMs);
    this.intake = new Intake(stdin, MAX_FRAME_BYTES);
    this.intake.onReady(this.pump);
    stdin.on("error", this.onstdinerror);
  }

  /** The transport for the SDK's Server, checking messages with `parse`; connecting starts it. */
  attach(parse: ParseMessage): this {
    this.parse = parse;
    return this;
  }

  async start(): Promise<void> {
    this.early = false;
    clearTimeout(this.timer);
    this.started = true;
    const kept = this.kept;
    this.kept = [];
    for (const line of kept) this.handle(line);
    this.pump();
  }

  /** Resolves once every line read has been handled and every request handed to the SDK answered (or cancelled by the client). */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forgets the lines read and not yet handled: a server that stops does not answer them. */
  drop(): void {
    this.intake.drop();
    this.wakeIdle();
  }

  private isIdle(): boolean {
    return this.pending.size === 0 && this.intake.size === 0;
  }

  private wakeIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  /** Takes the lines read while it may (see the class comment). */
  private readonly pump = (): void => {
    if (this.closed) return;
    // The end is seen even while lines wait to be taken: the server's shutdown rule needs it (see serveMcp).
    if (this.intake.ended && !this.ended) {
      this.ended = true;
      this.wantSdk();
      this.reachEof();
    }
    if (this.waiting) return;
    let calls = 0;
    while (this.intake.size > 0) {
      if (!this.early && !this.started) return; // start() pumps
      if (this.outbox.full) {
        this.waiting = true;
        void this.outbox.room().then(this.resume);
        return;
      }
      const line = this.intake.shift()!;
      const taken = this.take(line);
      if (taken === "call") calls += "text" in line ? line.text.length : 0;
      if ((taken === "request" || calls >= TURN_BYTES) && this.intake.size > 0) {
        this.waiting = true;
        setImmediate(this.resume);
        return;
      }
    }
    this.wakeIdle();
  };

  private readonly resume = () => {
    this.waiting = false;
    this.pump();
  };

  private readonly onstdinerror = (error: Error) => {
    // Before the SDK is attached nobody listens (the SDK's Server has no onerror set either).
    this.onerror?.(error);
  };

  private wantSdk(): void {
    this.early = false;
    clearTimeout(this.timer);
    this.settle();
  }

  private firstSeen = false;

  /** A line read: handled once started; before, answered early or kept for the SDK. What was handed to the SDK. */
  private take(line: Line): Handed {
    if (this.started) return this.handle(line);
    const first = !this.firstSeen;
    this.firstSeen = true;
    if (this.early && "text" in line && this.answerEarly(line.text, first)) {
      this.timer.refresh();
      return "none";
    }
    this.kept.push(line);
    this.wantSdk();
    return "none";
  }

  /**
   * Whether a line read before the SDK is needed is taken care of: a first `initialize` answered (and kept for
   * the SDK), `notifications/initialized` after it kept, a `tools/list` after it answered.
   */
  private answerEarly(text: string, first: boolean): boolean {
    if (!first && this.answered === undefined) return false;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return false;
    }
    if (first) {
      const response = earlyInitialize(message, this.identity);
      if (response === null) return false;
      this.answered = { id: response.id };
      this.kept.push({ text });
      this.outbox.line(JSON.stringify(response));
      return true;
    }
    if (isObject(message) && message["method"] === "notifications/initialized" && !("id" in message)) {
      this.kept.push({ text });
      return true;
    }
    const listed = earlyToolsList(message, this.listed);
    if (listed === null) return false;
    // As `send` writes the SDK's answer.
    this.outbox.line(messageLine(listed));
    return true;
  }

  /**
   * One frame: a JSON-RPC message goes to the SDK; anything else that can be answered is, with a JSON-RPC error.
   * What was handed to the SDK: a request's answer may follow in a moment.
   */
  private handle(line: Line): Handed {
    if ("tooLong" in line) {
      const { bytes, head, tail } = line.tooLong;
      this.reject(idOfOversized(head, tail), -32600, `Invalid Request: the message is ${bytes} bytes, over the ${MAX_FRAME_BYTES} byte limit; it was dropped`);
      return "none";
    }
    if (line.text.trim() === "") return "none";
    let value: unknown;
    try {
      value = JSON.parse(line.text);
    } catch {
      // Not quoted back: the line is the caller's and may hold anything, a secret included (§12).
      this.reject(undefined, -32700, "Parse error: the line is not JSON");
      return "none";
    }
    let message: JSONRPCMessage;
    try {
      message = this.parse!(value);
    } catch {
      const why = Array.isArray(value) ? BATCH_REFUSED : "Invalid Request: not a valid JSON-RPC 2.0 message";
      for (const id of idsOf(value)) this.reject(id, -32600, why);
      return "none";
    }
    if ("method" in message && "id" in message && !this.admit(message.id, line.text.length)) return "none";
    if ("method" in message && message.method === "notifications/cancelled" && isObject(message.params)) {
      // The id is free once the SDK has taken the cancellation, which aborts the call by its id a microtask later: a
      // request under that id read before then (the same write) would take its place in the SDK and be aborted instead,
      // the cancelled call running on to answer under the id. Until then, such a request is refused as a duplicate.
      const cancelled = message.params["requestId"];
      setImmediate(() => this.answer(cancelled));
    }
    try {
      this.onmessage?.(message);
    } catch {
      // The SDK threw on the client's message as it took it (a response to no request of the server's, nested too deep
      // for JSON.stringify to quote in its complaint): that message is refused, and the server goes on.
      if (!("method" in message && "id" in message)) return "none";
      this.answer(message.id);
      this.reject(message.id, -32600, "Invalid Request: the server could not take this message; it was dropped");
      return "none";
    }
    if (!("method" in message && "id" in message)) return "none";
    return message.method === "tools/call" ? "call" : "request";
  }

  /** Whether a request may wait for its answer; refused (answered with an error) when it may not. */
  private admit(id: Id, length: number): boolean {
    // Two requests under one id could not be told apart when one is answered.
    if (this.pending.has(id)) {
      this.reject(id, -32600, DUPLICATE_ID_REFUSED);
      return false;
    }
    const weight = length + REQUEST_WEIGHT;
    if (this.pendingWeight + weight > MAX_PENDING_WEIGHT) {
      this.reject(id, REFUSAL_CODES.refused, `Server busy: ${this.pending.size} requests (${this.pendingWeight} bytes) are unanswered, the most this server holds; send this one again once some are answered`);
      return false;
    }
    this.pending.set(id, weight);
    this.pendingWeight += weight;
    return true;
  }

  private reject(id: Id | undefined, code: number, message: string): void {
    this.outbox.line(JSON.stringify({ jsonrpc: "2.0", ...(id !== undefined && { id }), error: { code, message } }));
  }

  /** A request is answered (or cancelled): no longer pending. */
  private answer(id: unknown): void {
    const weight = this.pending.get(id as Id);
    if (weight === undefined) return;
    this.pending.delete(id as Id);
    this.pendingWeight -= weight;
    this.wakeIdle();
  }

  async close(): Promise<void> {
    clearTimeout(this.timer);
    this.closed = true;
    this.intake.close();
    this.stdin.off("error", this.onstdinerror);
    this.kept = [];
    this.onclose?.();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const response = "id" in message && !("method" in message);
    if (response) this.answer(message.id);
    // The SDK's answer to the `initialize` already answered: the same result, so it is not sent twice.
    if (response && this.answered !== undefined && message.id === this.answered.id) {
      this.answered = undefined;
      return Promise.resolve();
    }
    // Written at once: a client that does not read is held back where requests are taken (the pump), not here.
    this.outbox.line(messageLine(message));
    return Promise.resolve();
  }
}
