// The `json_exec` transport: newline-delimited JSON requests in, one response line each, run concurrently with a bound.

import type { Readable, Writable } from "node:stream";
import { compactJSON } from "../json/stable.js";
import { isObject } from "../pack/issues.js";
import { executeVerb } from "../runtime/execute.js";
import { Limiter } from "../runtime/limiter.js";
import { redactText } from "../runtime/redact.js";
import { maskError, packSecrets } from "../runtime/secrets.js";
import { TransportError, errorBody, jsonSyntax } from "./errors.js";
import { readLines, writeLine } from "./lines.js";
import { findPack, slotsOf, type ServedPack, type ServeOptions } from "./packs.js";

export interface ExecOptions extends ServeOptions {
  /** Requests running at once; 8 by default. */
  concurrency?: number;
  /** Aborting stops reading, kills every running child, and answers their requests `cancelled`. */
  signal?: AbortSignal;
}

/** A request line over this is answered `request_too_large` and skipped as it arrives, never buffered whole. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

type RequestId = string | number | null;

interface ExecRequest {
  id: RequestId;
  pack: string;
  verb: string;
  args: unknown;
  dry_run?: boolean;
  confirm?: string;
  stdin?: string;
}

const FIELDS = new Set(["id", "pack", "verb", "args", "dry_run", "confirm", "stdin"]);

/** The request id when it can be read from a parsed line (string or number), else null. */
function idOf(v: unknown): RequestId {
  if (!isObject(v)) return null;
  const id = v["id"];
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch (e) {
    throw new TransportError("invalid_request", `the line is not valid JSON: ${jsonSyntax(e)}`);
  }
}

const bad = (msg: string) => new TransportError("invalid_request", msg);

/** Checks one parsed line's shape; throws invalid_request naming the first problem. */
export function checkRequest(v: unknown): ExecRequest {
  if (!isObject(v)) throw bad("a request must be a JSON object");
  const r = v;
  for (const k of Object.keys(r)) if (!FIELDS.has(k)) throw bad(`unknown request field ${JSON.stringify(k)}`);
  if (idOf(r) === null) throw bad("id must be a string or a number");
  if (typeof r["pack"] !== "string") throw bad("pack must be a string: the id of a loaded pack");
  if (typeof r["verb"] !== "string") throw bad("verb must be a string");
  if (r["args"] !== undefined && !isObject(r["args"])) throw bad("args must be a JSON object");
  if (r["dry_run"] !== undefined && typeof r["dry_run"] !== "boolean") throw bad("dry_run must be a boolean");
  if (r["confirm"] !== undefined && typeof r["confirm"] !== "string") throw bad("confirm must be a string (a plan_id)");
  if (r["stdin"] !== undefined && typeof r["stdin"] !== "string") throw bad("stdin must be a string");
  return { ...(r as unknown as ExecRequest), args: r["args"] ?? {} };
}

/** Answers one line: never throws; the response carries the request's id (null when unknowable). */
async function answer(packs: readonly ServedPack[], line: string, opts: ExecOptions): Promise<Record<string, unknown>> {
  let id: RequestId = null;
  try {
    const parsed = parseLine(line);
    id = idOf(parsed);
    const req = checkRequest(parsed);
    const pack = findPack(packs, req.pack);
    const result = await executeVerb(pack, req.verb, req.args, {
      allowWrite: opts.allowWrite,
      dryRun: req.dry_run,
      confirm: req.confirm,
      stdin: req.stdin,
      signal: opts.signal,
      slots: slotsOf(pack),
      gate: opts.gate,
      transport: "json_exec",
    });
    return { id: typeof id === "string" ? redactText(id, packSecrets(packs)) : id, ok: true, result };
  } catch (err) {
    // The runtime masks what it throws; this also covers the transport's own errors (an unknown pack id, a bad line).
    const secrets = packSecrets(packs);
    return { id: typeof id === "string" ? redactText(id, secrets) : id, ok: false, error: errorBody(maskError(err, secrets)) };
  }
}

function tooLarge(bytes: number): Record<string, unknown> {
  const message = `the request line is ${bytes} bytes, over the ${MAX_REQUEST_BYTES / 1024 / 1024} MiB limit; it was skipped`;
  return { id: null, ok: false, error: errorBody(new TransportError("request_too_large", message)) };
}

/**
 * Serves requests from `input` until EOF, then waits for the running ones; blank lines are skipped. Once
 * `signal` aborts, reading stops and every line already read is still answered (running ones `cancelled`).
 */
export async function serveExec(packs: readonly ServedPack[], input: Readable, output: Writable, opts: ExecOptions = {}): Promise<void> {
  const requests = new Limiter(Math.max(1, opts.concurrency ?? 8));
  const running = new Set<Promise<void>>();
  const send = (response: Record<string, unknown>) => writeLine(output, compactJSON(response));
  for await (const line of readLines(input, MAX_REQUEST_BYTES, opts.signal)) {
    if ("tooLong" in line) {
      await send(tooLarge(line.tooLong.bytes));
      continue;
    }
    if (line.text.trim() === "") continue;
    // Wait for a free slot before reading on: the bound also holds back reading.
    const release = await requests.acquire();
    const task: Promise<void> = answer(packs, line.text, opts)
      .then(send)
      .finally(() => {
        release();
        running.delete(task);
      });
    running.add(task);
  }
  await Promise.all(running);
}
