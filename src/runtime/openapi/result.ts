// The result of an openapi verb (§6.7): what was sent, the status and a few headers, the body (capped),
// its JSON value, with every secret masked; or, in mock mode, an answer built from the operation's examples.

import { isObject } from "../../pack/issues.js";
import { MAX_JSON_DEPTH, tooDeep } from "../../pack/load.js";
import { RuntimeError } from "../errors.js";
import { cutTruncatedTail, redact, redactText, shownBytes, type SecretSet } from "../secrets/redact.js";
import type { HttpResponse } from "./http.js";
import { utf8Text } from "./http.js";
import { isJsonMediaType, type Operation } from "./operations.js";

/** The §6.7 result. */
export interface HttpResult {
  pack: string;
  verb: string;
  request: { method: string; url: string };
  /** Null when no response head arrived before the deadline. */
  status: number | null;
  /** A 2xx status. */
  ok: boolean;
  headers: Record<string, string>;
  body: string;
  body_bytes: number;
  body_truncated: boolean;
  duration_ms: number;
  timed_out: boolean;
  json?: unknown;
  /** Present (true) when the answer was made up from the document's examples (binding mode mock). */
  mock?: true;
  /** What the agent cannot tell from the answer alone: a 401 or 403 to a request that went out with no credential. */
  note?: string;
}

/** True for the result of an openapi verb rather than of a program. */
export function isHttpResult(r: object): r is HttpResult {
  return "request" in r && "status" in r;
}

/**
 * The response headers a result carries; never set-cookie. `link` and the counts and rate limits beside it are how
 * an API pages (GitHub says there is a next page only in `link`) and how much it still allows.
 */
const KEPT_HEADERS = [
  "content-type", "content-length", "location", "retry-after", "www-authenticate", "etag", "last-modified",
  "link", "x-total-count", "x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "ratelimit", "ratelimit-policy", "ratelimit-limit", "ratelimit-remaining", "ratelimit-reset",
];

/**
 * The value of a body that declares JSON; a 2xx body that does not parse, or nests deeper than the pack documents
 * may, is an error; any other is kept as text only. The depth bound keeps the result small: printed with indentation,
 * 30 KB of nested brackets would become hundreds of megabytes, and would overflow the stack of an MCP client.
 */
function jsonOf(text: string, contentType: string | null, status: number | null, where: string): { value: unknown } | undefined {
  if (text.trim() === "") return undefined;
  const strict = contentType !== null && isJsonMediaType(contentType) && status !== null && status >= 200 && status <= 299;
  const refuse = (why: string) => new RuntimeError("invalid_response", `${where} answered ${status} with Content-Type ${contentType}, but its body ${why}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (!strict) return undefined;
    // The parser's message quotes the body (its first characters, the one it stopped at), which may hold a secret
    // the server echoed: say only where it stopped.
    const at = /at position (\d+)/.exec((e as Error).message);
    throw refuse(`is not JSON${at ? ` (at character ${at[1]})` : ""}`);
  }
  if (tooDeep(value, MAX_JSON_DEPTH) === undefined) return { value };
  if (strict) throw refuse(`nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
  return undefined;
}

/** Builds the masked result of a response. `request` is as planned (no credentials in it). */
export function httpResult(
  plan: { pack: string; verb: string; method: string; url: string },
  r: HttpResponse,
  secrets: SecretSet,
): HttpResult {
  const text = utf8Text(r.body, r.truncated);
  const headers: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const v = r.headers.get(name);
    if (v !== null) headers[name] = redactText(v, secrets);
  }
  // A cut body loses its tail whatever it holds (§12), then is masked.
  const kept = r.truncated ? cutTruncatedTail(text, secrets) : text;
  const masked = redactText(kept, secrets);
  // The server's length and ETag are of the body it sent: beside a masked one they would tell each secret's length (and
  // the ETag, often a hash of the body, would let a guess of it be tested).
  if (masked !== kept) for (const name of ["content-length", "etag"]) delete headers[name];
  const result: HttpResult = {
    pack: plan.pack,
    verb: plan.verb,
    request: { method: plan.method, url: redactText(plan.url, secrets) },
    status: r.status,
    ok: r.status !== null && r.status >= 200 && r.status <= 299,
    headers,
    body: masked,
    body_bytes: shownBytes(r.bytes, kept, masked),
    body_truncated: r.truncated,
    duration_ms: r.durationMs,
    timed_out: r.timedOut,
  };
  if (!r.truncated && !r.timedOut) {
    try {
      const json = jsonOf(text, r.headers.get("content-type"), r.status, `${plan.method} ${result.request.url}`);
      // Checked on the raw text (a 2xx body declared JSON must be JSON), but the value shown is the masked body's
      // (absent when masking left no JSON): a number is no text to mask, so a secret the server sent as a JSON number
      // would show whole. Masked as a value too: a secret written with JSON escapes is masked after decoding.
      const shown = json === undefined || masked === text ? json : jsonOf(masked, null, r.status, "");
      if (shown !== undefined) result.json = redact(shown.value, secrets);
    } catch (err) {
      if (err instanceof RuntimeError) err.message = redactText(err.message, secrets);
      throw err;
    }
  }
  return result;
}

/** The first example of a media type: `example`, the first of `examples`, else the schema's `example`. */
function exampleOf(media: Record<string, unknown>): { value: unknown } | undefined {
  if (media["example"] !== undefined) return { value: media["example"] };
  if (isObject(media["examples"])) {
    for (const ex of Object.values(media["examples"])) if (isObject(ex) && ex["value"] !== undefined) return { value: ex["value"] };
  }
  const schema = media["schema"];
  if (isObject(schema)) {
    if (schema["example"] !== undefined) return { value: schema["example"] };
    if (Array.isArray(schema["examples"]) && schema["examples"].length > 0) return { value: schema["examples"][0] };
  }
  return undefined;
}

/** Mock mode: the operation's first 2xx response, answered with its first example, the URL with `secrets` masked; nothing is sent. */
export function mockResult(plan: { pack: string; verb: string; method: string; url: string }, op: Operation, secrets: SecretSet): HttpResult {
  const responses = isObject(op.raw["responses"]) ? op.raw["responses"] : {};
  const code = Object.keys(responses).find((c) => /^2(\d\d|XX)$/i.test(c));
  if (code === undefined) {
    throw new RuntimeError("not_executable", `mock mode: operation ${op.method} ${op.path} declares no 2xx response to answer with`);
  }
  const response = responses[code];
  const content = isObject(response) && isObject(response["content"]) ? response["content"] : {};
  let type: string | undefined;
  let example: { value: unknown } | undefined;
  for (const [t, media] of Object.entries(content)) {
    const ex = isObject(media) ? exampleOf(media) : undefined;
    if (ex !== undefined) {
      type = t;
      example = ex;
      break;
    }
  }
  if (Object.keys(content).length > 0 && example === undefined) {
    throw new RuntimeError("not_executable", `mock mode: the ${code} response of ${op.method} ${op.path} has no example to answer with`);
  }
  const json = type !== undefined && isJsonMediaType(type);
  const body = example === undefined ? "" : json || typeof example.value !== "string" ? JSON.stringify(example.value, null, 2) : example.value;
  const result: HttpResult = {
    pack: plan.pack,
    verb: plan.verb,
    request: { method: plan.method, url: redactText(plan.url, secrets) },
    status: /^2XX$/i.test(code) ? 200 : Number(code),
    ok: true,
    headers: type === undefined ? {} : { "content-type": type },
    body,
    body_bytes: Buffer.byteLength(body),
    body_truncated: false,
    duration_ms: 0,
    timed_out: false,
  };
  if (example !== undefined && (json || typeof example.value !== "string")) result.json = example.value;
  result.mock = true;
  return result;
}
