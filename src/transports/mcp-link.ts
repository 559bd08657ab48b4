// The stdio link of the MCP server. The SDK (with zod and Ajv) costs a few hundred ms to load, so
// StdioLink reads stdin from the start, answers a well-formed `initialize` itself — exactly as the
// SDK would (a property test holds the two answers equal) — and hands every message, that one
// included, to the SDK's Server once it is loaded, dropping the SDK's duplicate answer.

import type { ReadBuffer } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { compactJSON } from "../json/stable.js";
import { isObject } from "../pack/issues.js";

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
      // compactJSON, not JSON.stringify: a result's numbers keep their literal (9007199254740993, §6.5).
      if (this.stdout.write(compactJSON(message) + "\n")) resolve();
      else this.stdout.once("drain", resolve);
    });
  }
}
