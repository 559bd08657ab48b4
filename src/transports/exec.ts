// The `json_exec` transport: newline-delimited JSON requests in, one response line each, run concurrently with a bound.

import { setMaxListeners } from "node:events";
import type { Readable, Writable } from "node:stream";
import { compactJSON } from "../json/stable.js";
import { escapeInvisibleJSON } from "../json/visible.js";
import { isObject } from "../pack/issues.js";
import { cutWhole } from "../pack/sentence.js";
import { executeVerb } from "../runtime/execute.js";
import { Limiter } from "../runtime/limiter.js";
import { redactText } from "../runtime/secrets/redact.js";
import { maskError, packSecrets } from "../runtime/secrets/secrets.js";
import { usableVerbs } from "../runtime/verb-lookup.js";
import { verbsHint } from "../runtime/verb-names.js";
import { TransportError, errorBody, jsonSyntax } from "./errors.js";
import { linkSignals } from "./abort.js";
import { Intake } from "./intake.js";
import { Outbox } from "./outbox.js";
import { findPack, slotsOf, type ServedPack, type ServeOptions } from "./packs.js";

export interface ExecOptions extends ServeOptions {
  /** Requests running at once; 8 by default. */
  concurrency?: number;
  /** Aborting stops reading, kills every running child, and answers their requests `cancelled`. */
  signal?: AbortSignal;
  /** Told, for the operator, what a request's result has no field for (OUTPUT_HELD), the request named. */
  onWarning?: (text: string) => void;
}

/** A request line over this is answered `request_too_large` and skipped as it arrives, never buffered whole. */
export const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/**
 * What the requests taken in and not yet answered may weigh together before no more is taken in: each its line plus
 * REQUEST_WEIGHT (what a request in flight costs besides its line), as on the stdio MCP server. Without it,
 * --concurrency 1024 requests of 16 MiB each could be held at once.
 */
export const MAX_PENDING_WEIGHT = 64 * 1024 * 1024;
const REQUEST_WEIGHT = 16 * 1024;

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

/**
 * Checks one parsed line's shape; throws invalid_request naming the first problem, and what to give instead: the
 * loaded packs' ids for `pack`, the named pack's verbs (those the caller may use) for `verb`.
 */
export function checkRequest(v: unknown, loaded: readonly ServedPack[] = []): ExecRequest {
  if (!isObject(v)) throw bad("a request must be a JSON object");
  const r = v;
  for (const k of Object.keys(r)) {
    // The likeliest slip: a verb's argument beside the request's fields instead of in args.
    if (!FIELDS.has(k)) throw bad(`unknown request field ${JSON.stringify(k)} (a request has ${[...FIELDS].join(", ")}; the verb's arguments go in args)`);
  }
  if (idOf(r) === null) throw bad("id must be a string or a number");
  if (typeof r["pack"] !== "string") {
    const ids = loaded.length === 0 ? "none" : loaded.map((p) => JSON.stringify(p.surface.id)).join(", ");
    throw bad(`${r["pack"] === undefined ? "pack is missing" : "pack must be a string"}: give the id of a loaded pack (loaded: ${ids})`);
  }
  if (typeof r["verb"] !== "string") {
    const pack = loaded.find((p) => p.surface.id === r["pack"]);
    const verbs = pack === undefined ? "" : ` (${verbsHint(usableVerbs(pack, pack.surface))})`;
    throw bad(`${r["verb"] === undefined ? "verb is missing" : "verb must be a string"}${verbs}`);
  }
  if (r["args"] !== undefined && !isObject(r["args"])) throw bad("args must be a JSON object");
  if (r["dry_run"] !== undefined && typeof r["dry_run"] !== "boolean") throw bad("dry_run must be a boolean");
  if (r["confirm"] !== undefined && typeof r["confirm"] !== "string") throw bad("confirm must be a string (a plan_id)");
  if (r["stdin"] !== undefined && typeof r["stdin"] !== "string") throw bad("stdin must be a string");
  return { ...(r as unknown as ExecRequest), args: r["args"] ?? {} };
}

/** A request's id as its response carries it: a string one with the packs' secrets masked. */
const shownId = (id: RequestId, packs: readonly ServedPack[]): RequestId => (typeof id === "string" ? redactText(id, packSecrets(packs)) : id);

/** A request named in a warning: its id as JSON, at most 80 characters, with no character a terminal acts on or hides. */
function requestName(id: RequestId, packs: readonly ServedPack[], req: ExecRequest): string {
  const json = escapeInvisibleJSON(JSON.stringify(shownId(id, packs)));
  return `request ${json.length > 80 ? `${cutWhole(json, 79)}…` : json} (${req.pack} ${req.verb})`;
}

/** Answers one line: never throws; the response carries the request's id (null when unknowable). */
async function answer(packs: readonly ServedPack[], line: string, opts: ExecOptions, outbox: Outbox): Promise<Record<string, unknown>> {
  let id: RequestId = null;
  const { onWarning } = opts;
  try {
    const parsed = parseLine(line);
    id = idOf(parsed);
    const req = checkRequest(parsed, packs);
    const pack = findPack(packs, req.pack);
    // While the client leaves its answers untaken, nothing starts: not here, nor where a child waits for its slot.
    await outbox.room(opts.signal);
    const result = await executeVerb(pack, req.verb, req.args, {
      allowWrite: opts.allowWrite,
      dryRun: req.dry_run,
      confirm: req.confirm,
      stdin: req.stdin,
      cwd: opts.cwd,
      signal: opts.signal,
      slots: outbox.gate(slotsOf(pack)),
      gate: opts.gate,
      transport: "json_exec",
      ...(onWarning && { onWarning: (w: string) => onWarning(`${requestName(id, packs, req)}: ${w}`) }),
    });
    return { id: shownId(id, packs), ok: true, result };
  } catch (err) {
    // The runtime masks what it throws; this also covers the transport's own errors (an unknown pack id, a bad line).
    return { id: shownId(id, packs), ok: false, error: errorBody(maskError(err, packSecrets(packs))) };
  }
}

function tooLarge(bytes: number): Record<string, unknown> {
  const message = `the request line is ${bytes} bytes, over the ${MAX_REQUEST_BYTES / 1024 / 1024} MiB limit; it was skipped`;
  return { id: null, ok: false, error: errorBody(new TransportError("request_too_large", message)) };
}

/**
 * Serves requests from `input` until EOF, then waits for the running ones; blank lines are skipped. Once
 * `signal` aborts, reading stops and every line already taken in is still answered (running ones `cancelled`).
 * Backpressure: no line is taken in while the client leaves more than MAX_BACKLOG_BYTES of answers untaken, or while
 * the requests taken in and unanswered weigh MAX_PENDING_WEIGHT. After the end of input, a client that takes none of
 * its answers for STALL_MS is given up on: what runs is cancelled, as on a signal.
 */
export async function serveExec(packs: readonly ServedPack[], input: Readable, output: Writable, opts: ExecOptions = {}): Promise<void> {
  const requests = new Limiter(Math.max(1, opts.concurrency ?? 8));
  const outbox = new Outbox(output);
  const intake = new Intake(input, MAX_REQUEST_BYTES);
  const gaveUp = new AbortController();
  const stop = linkSignals(opts.signal === undefined ? [gaveUp.signal] : [opts.signal, gaveUp.signal]);
  // Each request in flight (and each wait for room) listens to the stop: as many listeners as requests, by design.
  setMaxListeners(0, stop.signal);
  const over = new AbortController();
  void outbox.whenStalled(over.signal, () => intake.ended).then(() => gaveUp.abort());
  const running = new Set<Promise<void>>();
  const send = (response: Record<string, unknown>) => outbox.line(compactJSON(response));
  const served = { ...opts, signal: stop.signal };
  let weight = 0;
  const tooHeavy = (more: number) => weight > 0 && weight + more > MAX_PENDING_WEIGHT;
  try {
    for (;;) {
      await outbox.room(stop.signal);
      const line = await intake.next(stop.signal);
      if (line === undefined) break;
      if ("tooLong" in line) {
        send(tooLarge(line.tooLong.bytes));
        continue;
      }
      if (line.text.trim() === "") continue;
      const lineWeight = line.text.length + REQUEST_WEIGHT;
      // Each request answered makes room (its task deletes itself from `running` and lowers `weight`).
      while (tooHeavy(lineWeight)) await Promise.race(running);
      // Wait for a free slot before reading on: the bound also holds back reading.
      const release = await requests.acquire();
      weight += lineWeight;
      const task: Promise<void> = answer(packs, line.text, served, outbox)
        .then(send)
        .finally(() => {
          release();
          weight -= lineWeight;
          running.delete(task);
        });
      running.add(task);
    }
  } catch (err) {
    // Only the stop ends the wait for room; the input's own error ends the server as before.
    if (!stop.signal.aborted) throw err;
  } finally {
    await Promise.all(running);
    over.abort();
    stop.release();
    intake.close();
  }
}
