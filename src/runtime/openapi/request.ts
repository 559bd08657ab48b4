// The request an openapi verb sends (§6.7): the base URL, then path parameters percent-encoded as one
// segment each, query parameters encoded, header values without CR/LF, cookies percent-encoded, and the body. Pure.

import { isDeepStrictEqual } from "node:util";
import { isObject } from "../../pack/issues.js";
import type { PolicyDocument } from "../../pack/types.js";
import { MAX_STATE_FILE } from "../approval/state.js";
import { RuntimeError, showValue } from "../errors.js";
import type { DocumentHead } from "./document.js";
import { checkTransportSecurity } from "./http.js";
import type { Operation, Parameter, RequestBody } from "./operations.js";
import { argumentParameters, type ArgumentParameter } from "./schema.js";
import { placeholderLabel } from "./placeholder-host.js";

/** What a request sends, before credentials (which are added only when it is sent). */
export interface PlannedRequest {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
}

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** What to do when the document names no absolute server: where the base URL goes, in the form policy.json takes. */
export const SET_BASE_URL = 'give the API\'s base URL in policy.json: "openapi": {"base_url": "https://…"}';

/** A server object's URL with its variables at their defaults. */
export function serverUrl(server: Record<string, unknown>): string {
  const variables = isObject(server["variables"]) ? server["variables"] : {};
  return String(server["url"]).replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = variables[name];
    return isObject(v) && typeof v["default"] === "string" ? v["default"] : whole;
  });
}

/** policy.json `openapi.base_url`, else the document's first server with its variables at their defaults. */
export function baseUrlOf(policy: PolicyDocument | null, document: DocumentHead, sends = true): URL {
  const configured = policy?.openapi?.base_url;
  let text: string | undefined = configured;
  let where = "policy.json openapi.base_url";
  if (text === undefined) {
    const server = Array.isArray(document.servers) ? document.servers[0] : undefined;
    if (!isObject(server) || typeof server["url"] !== "string") {
      throw new RuntimeError("not_executable", `the OpenAPI document ${document.source} has no servers: ${SET_BASE_URL}`);
    }
    text = serverUrl(server);
    where = `the first server of ${document.source}`;
  }
  let url: URL;
  try {
    url = document.url !== undefined && configured === undefined ? new URL(text, document.url) : new URL(text);
  } catch {
    throw new RuntimeError("not_executable", `${where} is not an absolute URL (${showValue(text)}): ${SET_BASE_URL}`);
  }
  const refused = checkTransportSecurity(url, `the base URL (${where})`);
  if (refused !== undefined) throw new RuntimeError("not_executable", refused);
  // The document's server may stand for the reader's own: the person's credential would go to whoever answers for it.
  const placeholder = configured === undefined && sends ? placeholderLabel(url.hostname) : undefined;
  if (placeholder !== undefined) throw new RuntimeError("not_executable", `${where} is ${url.origin}, whose ${JSON.stringify(placeholder)} stands for your own host, not one to call: ${SET_BASE_URL}`);
  url.search = "";
  url.hash = "";
  return url;
}

/** True when a text holds a lone UTF-16 surrogate: it has no UTF-8 form, so encoding it would fail or silently become U+FFFD. */
export function hasLoneSurrogate(text: string): boolean {
  return /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);
}

/** A scalar argument as text (a lone surrogate refused rather than guessed at). */
function scalar(name: string, v: unknown): string {
  let text: string;
  if (typeof v === "string") text = v;
  else if (typeof v === "number" || typeof v === "boolean") text = String(v);
  else throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(name)}: must be a string, number or boolean here${isObject(v) || Array.isArray(v) ? " (inside its array or object)" : ""}`);
  if (hasLoneSurrogate(text)) {
    throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(name)}: holds a lone UTF-16 surrogate, which is not text that can be sent`);
  }
  return text;
}

/** An object's key that is text that can be sent (no lone surrogate, which encodeURIComponent cannot write). */
function textKey(name: string, key: string): string {
  if (hasLoneSurrogate(key)) throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(name)}: a key holds a lone UTF-16 surrogate, which is not text that can be sent`);
  return key;
}

/**
 * A path, header or cookie parameter's value as its `style` and `explode` say (OpenAPI 3.0 §4.7.12.4). simple, a path's
 * and a header's default: `blue`, `blue,black`, an object `R,100,G,200` (exploded `R=100,G=200`); label: `.blue`,
 * `.blue,black` (exploded `.blue.black`, `.R=100.G=200`); matrix: `;color=blue`, `;color=blue,black` (exploded
 * `;color=blue;color=black`, `;R=100;G=200`); a cookie's form: `blue,black`, `R,100,G,200`. Each name and value as
 * `encode` writes it (percent-encoded in a path); one holding a character that separates them here is refused, as the
 * server would read it as two.
 */
function styledValue(p: Parameter, v: unknown, encode: (text: string) => string): string {
  const style = p.in === "cookie" ? "form" : (p.style ?? "simple");
  const explode = p.in !== "cookie" && p.explode === true;
  const item = (x: unknown) => scalar(p.name, x);
  const entries = isObject(v) ? Object.entries(v).map(([k, x]) => [textKey(p.name, k), item(x)]) : undefined;
  const items = Array.isArray(v) ? v.map(item) : undefined;
  if (entries === undefined && items === undefined) {
    const one = encode(item(v));
    return style === "label" ? `.${one}` : style === "matrix" ? `;${encode(p.name)}=${one}` : one;
  }
  // What joins the parts, and `=` between an exploded object's names and values.
  const joins = explode && style === "label" ? "." : explode && style === "matrix" ? ";" : ",";
  const separators = entries !== undefined && explode ? `${joins}=` : joins;
  refuseHolding(p.name, entries?.flat() ?? items!, separators);
  const parts = entries !== undefined && explode ? entries.map(([k, x]) => `${encode(k!)}=${encode(x!)}`) : (entries?.flat() ?? items!).map(encode);
  if (style === "label") return `.${parts.join(joins)}`;
  if (style !== "matrix") return parts.join(joins);
  // Matrix: an exploded array repeats the name; an exploded object's names are its own.
  if (!explode) return `;${encode(p.name)}=${parts.join(",")}`;
  return entries !== undefined ? parts.map((x) => `;${x}`).join("") : parts.map((x) => `;${encode(p.name)}=${x}`).join("");
}

/**
 * One path segment as its style writes it, each part percent-encoded so that `/` cannot change the path; a segment
 * that is empty, `.` or `..` is refused (URL parsers resolve them).
 */
function segment(p: Parameter, v: unknown): string {
  const text = styledValue(p, v, encodeURIComponent);
  if (text === "" || text === "." || text === "..") {
    throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(p.name)}: a path parameter cannot be ${text === "" ? "empty" : JSON.stringify(text)}`);
  }
  return text;
}

/** A value inside an array or object of a query value: a scalar as text, anything else as its JSON. */
const queryItem = (name: string, v: unknown): string => (isObject(v) || Array.isArray(v) ? JSON.stringify(v) : scalar(name, v));

/**
 * The most characters a request's URL or form body may be, and an argument's deepObject pairs before they are built
 * whole: what a person can review in a plan (servers take far less). A value is percent-encoded as it is sent, up to 9
 * characters for one (`€`), and a deepObject value is sent under its whole name: 2 MB of nested arrays
 * (`[[[…[1,1,…]]]]`) wrote hundreds of megabytes of names, and hcp died of memory with calls in flight.
 */
const WIRE_MAX_CHARS = MAX_STATE_FILE;

/**
 * `name[key]…=value` for each scalar inside an object or array (deepObject, as Stripe reads `created[gte]=1`). A key
 * holding a bracket is refused: `{"x][y": 1}` would be sent as `name[x][y]`, which a server reads as another nesting.
 */
function deepPairs(name: string, v: unknown): [string, string][] {
  const out: [string, string][] = [];
  let chars = 0;
  const walk = (at: string, x: unknown): void => {
    if (!isObject(x) && !Array.isArray(x)) {
      const text = scalar(name, x);
      // As sent: percent-encoded, a bracket as 3 characters, a `€` as 9.
      chars += encodeURIComponent(at).length + encodeURIComponent(text).length;
      if (chars > WIRE_MAX_CHARS) {
        throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(name)}: written as ${name}[…]=value pairs, each value under its whole name, it comes to over ${WIRE_MAX_CHARS} characters`);
      }
      out.push([at, text]);
      return;
    }
    for (const [k, y] of Object.entries(x)) {
      textKey(name, k);
      if (/[[\]]/.test(k)) throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(name)}: the key ${showValue(k)} holds a bracket, which a server would read as another level of the object`);
      walk(`${at}[${k}]`, y);
    }
  };
  walk(name, v);
  return out;
}

/**
 * Appends each argument's pairs, refusing a name two arguments would both send (an exploded object's property `to`
 * beside an argument `to`): a server keeps the first or the last, whichever it likes, of what a person read as two.
 */
function appendPairs(into: URLSearchParams, args: Iterable<[string, [string, string][]]>): void {
  const sentBy = new Map<string, string>();
  for (const [argument, pairs] of args) {
    for (const [name, text] of pairs) {
      const other = sentBy.get(name);
      if (other !== undefined && other !== argument) {
        throw new RuntimeError("invalid_argument", `arguments ${JSON.stringify(other)} and ${JSON.stringify(argument)} would both be sent as ${showValue(name)}; one name is one argument's`);
      }
      sentBy.set(name, argument);
      into.append(name, text);
    }
  }
}

/**
 * A query parameter's (or a form field's) name=value pairs as its `style` and `explode` say (OpenAPI 3.0 §4.7.12.4):
 * form by default, exploded by default only when form. An array: each item its own pair when exploded, else one value,
 * its items joined by `,` (form), ` ` (spaceDelimited) or `|` (pipeDelimited). An object: each property its own pair
 * when exploded (form), `name[key]=value` (deepObject, an array's items `name[0]=…`), else `key,value,…` in one value.
 */
function queryPairs(name: string, how: Pick<Parameter, "style" | "explode"> | undefined, v: unknown, hidden = false): [string, string][] {
  const style = how?.style ?? "form";
  const explode = how?.explode ?? style === "form";
  // An array too, as deepObject's objects nest one (`items[0][price]=p`: Stripe's line items, its `expand[0]`).
  if (style === "deepObject" && (isObject(v) || Array.isArray(v))) return deepPairs(name, v);
  if (isObject(v)) {
    if (explode && hidden) {
      throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(name)} is secret: an object here sends its properties as fields of their own, which the plan a person approves would show masked under names of the agent's; give it as a string`);
    }
    const entries = Object.entries(v).map(([k, x]): [string, string] => [k, queryItem(name, x)]);
    return explode ? entries : [[name, joined(name, entries.flat(), ",")]];
  }
  if (Array.isArray(v)) {
    const items = v.map((x) => queryItem(name, x));
    if (explode) return items.map((x) => [name, x]);
    return [[name, joined(name, items, style === "spaceDelimited" ? " " : style === "pipeDelimited" ? "|" : ",")]];
  }
  return [[name, scalar(name, v)]];
}

/**
 * Refuses an item holding one of `separators`, the characters that part the items of its value: encoded with the rest,
 * `["a,b"]` would reach the server as the two items `a` and `b`, one of them a value nobody gave.
 */
function refuseHolding(name: string, items: readonly string[], separators: string): void {
  const holding = items.find((item) => [...separators].some((c) => item.includes(c)));
  if (holding !== undefined) {
    throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(name)}: ${showValue(holding)} holds ${[...separators].map((c) => JSON.stringify(c)).join(" or ")}, which separates its items here`);
  }
}

/** Items joined into one value by `delimiter`, an item holding it refused. */
function joined(name: string, items: readonly string[], delimiter: string): string {
  refuseHolding(name, items, delimiter);
  return items.join(delimiter);
}

/**
 * Whether the value of `key` is one the plan a person approves shows masked (`shown`: the arguments as maskedArgs makes
 * them, when any is secret): it is, where masking changed it.
 */
const hides = (shown: unknown, key: string, value: unknown): boolean => isObject(shown) && !isDeepStrictEqual(shown[key], value);

/**
 * A form body (`application/x-www-form-urlencoded`) as it is sent: its fields, each as the media type's `encoding` says
 * (form, exploded, by default: `a=1&b=x&b=y`; deepObject `meta[k]=v`). `shown`: the body as a person is shown it.
 */
export function formBody(body: RequestBody, value: unknown, options: BuildOptions = {}): string {
  if (!isObject(value)) throw new RuntimeError("invalid_argument", `argument "body": a form (${body.mediaType}) is an object of its fields, got ${Array.isArray(value) ? "an array" : value === null ? "null" : `a ${typeof value}`}`);
  const form = new URLSearchParams();
  const fields = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
  appendPairs(
    form,
    fields.map(([field, v]) => {
      const pairs = queryPairs(field, body.encoding?.[field], v, hides(options.shown?.["body"], field, v));
      for (const [name] of pairs) refuseCredentialPlace(options, `body.${field}`, "form", name);
      return [`body.${field}`, pairs];
    }),
  );
  return withinBound("the form body", form.toString());
}

/** `text`, refused when longer than WIRE_MAX_CHARS. */
function withinBound(what: string, text: string): string {
  if (text.length > WIRE_MAX_CHARS) throw new RuntimeError("invalid_argument", `${what} would be ${text.length} characters as sent, over the ${WIRE_MAX_CHARS} a request may be`);
  return text;
}

/** What a request is built with beside its arguments. */
export interface BuildOptions {
  /** The arguments as the plan a person approves shows them (each secret masked in its own place), when any is secret. */
  readonly shown?: Readonly<Record<string, unknown>>;
  /** Where the credentials go (security.ts credentialPlaces): no argument may be sent there. */
  readonly credentials?: ReadonlyMap<string, string>;
}

/**
 * Refuses an argument that would be sent where hcp puts a credential, its name in any case; a form field is refused
 * under the name of a credential sent in the query, which many servers read together with the form.
 */
function refuseCredentialPlace(options: BuildOptions, argument: string, where: "query" | "header" | "cookie" | "form", name: string): void {
  const scheme = options.credentials?.get(`${where === "form" ? "query" : where}:${name.toLowerCase()}`);
  if (scheme === undefined) return;
  const place = where === "query" ? "query parameter" : where === "form" ? "form field" : where;
  throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(argument)} would be sent as the ${place} ${showValue(name)}, where hcp puts the credential of security scheme ${JSON.stringify(scheme)} (or beside it) when the request is sent: it is not an argument's to give`);
}

/**
 * The key `args` give a parameter under: its argument's name, or, where a verb's own `args` (surface.json) name a
 * renamed parameter as the document does and not by that name, the document's.
 */
function givenAs(args: Readonly<Record<string, unknown>>, named: ArgumentParameter): string {
  return Object.hasOwn(args, named.argument) || !Object.hasOwn(args, named.param.name) ? named.argument : named.param.name;
}

/** Builds the request from validated arguments. Throws RuntimeError (invalid_argument). */
export function buildRequest(op: Operation, args: Readonly<Record<string, unknown>>, base: URL, options: BuildOptions = {}): PlannedRequest {
  const { shown } = options;
  if (op.unsentBody?.required === true) {
    // Sent without it, the request would be a write the API takes as asked for with nothing (Stripe's blank customer).
    const types = op.unsentBody.mediaTypes.join(", ");
    throw new RuntimeError("not_executable", `${op.method} ${op.path} requires a request body as ${types}, which hcp cannot send (it sends JSON, a form or plain text); nothing was sent`);
  }
  // OpenAPI's paths start with `/`; a document's `users/{id}` means the same (else the URL would run into the host).
  const template = op.path.startsWith("/") ? op.path : `/${op.path}`;
  const parameters = argumentParameters(op);
  const path = template.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const named = parameters.find((a) => a.param.name === name && a.param.in === "path");
    const argument = named === undefined ? name : givenAs(args, named);
    if (!Object.hasOwn(args, argument)) throw new RuntimeError("missing_argument", `argument ${JSON.stringify(argument)} is required: it is part of the path ${op.path}`);
    return segment(named?.param ?? { name, in: "path", required: true }, args[argument]);
  });
  const prefix = base.pathname.replace(/\/+$/, "");
  const url = new URL(base.origin + prefix + path);
  // Defence in depth: whatever the values were, the request stays under the base URL.
  if (url.origin !== base.origin || !(url.pathname === prefix || url.pathname.startsWith(prefix + "/"))) {
    throw new RuntimeError("invalid_argument", `the request path ${showValue(url.pathname)} leaves the base URL ${base.href}`);
  }
  const headers: Record<string, string> = {};
  const query: [string, [string, string][]][] = [];
  const cookies: string[] = [];
  for (const named of parameters) {
    const { param: p } = named;
    const argument = givenAs(args, named);
    if (!Object.hasOwn(args, argument) || p.in === "path") continue;
    const v = args[argument];
    if (v === undefined || v === null) continue;
    if (p.in === "query") {
      const pairs = queryPairs(p.name, p, v, hides(shown, argument, v));
      for (const [name] of pairs) refuseCredentialPlace(options, argument, "query", name);
      query.push([p.name, pairs]);
    } else if (p.in === "cookie") {
      if (!HEADER_NAME.test(p.name)) throw new RuntimeError("invalid_argument", `cookie parameter ${showValue(p.name)} is not a valid cookie name`);
      refuseCredentialPlace(options, argument, "cookie", p.name);
      // Percent-encoded: a cookie's value cannot hold `;`, `,`, a space or a quote (RFC 6265), so none can start another cookie.
      cookies.push(`${p.name}=${encodeURIComponent(styledValue(p, v, (a) => a))}`);
    } else {
      if (!HEADER_NAME.test(p.name)) throw new RuntimeError("invalid_argument", `header parameter ${showValue(p.name)} is not a valid header name`);
      refuseCredentialPlace(options, argument, "header", p.name);
      const text = styledValue(p, v, (a) => a);
      if (/[\r\n\0]/.test(text)) throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(argument)}: a header value cannot contain CR, LF or NUL`);
      if (/[\x01-\x08\x0b-\x1f\x7f-\x9f]/.test(text)) throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(argument)}: a header value cannot contain a control character`);
      // Checked here, not left to fetch: its error would come after the approval, and quote a character of the value.
      if (/[^\0-\xff]/.test(text)) throw new RuntimeError("invalid_argument", `argument ${JSON.stringify(argument)}: a header value can only hold Latin-1 characters (U+0000 to U+00FF)`);
      headers[p.name.toLowerCase()] = text;
    }
  }
  appendPairs(url.searchParams, query);
  // Cookie parameters travel in the Cookie header, shown in the plan as they are sent (a credential's cookie is added
  // when the request is sent: verb.ts).
  if (cookies.length > 0) headers["cookie"] = cookies.join("; ");
  const out: PlannedRequest = { method: op.method, url: withinBound("the request's URL", url.href) };
  if (Object.keys(headers).length > 0) out.headers = headers;
  if (op.body !== undefined && Object.hasOwn(args, "body")) {
    const body = sendableBody(args["body"]);
    // A form is planned as it is sent, its fields' names as the server reads them: the person approves what goes out.
    out.body = op.body.form === "form" ? formBody(op.body, body, options) : body;
  }
  return out;
}

/**
 * The body as given, refused when a key or string in it holds a lone surrogate: JSON.stringify sends it as its own
 * escape (`\ud800`), while the plan a person approves, written as Go writes JSON, shows every one as U+FFFD, so one
 * approval would let the agent send any of 2,048 other strings.
 */
function sendableBody(body: unknown): unknown {
  const stack: [unknown, string][] = [[body, ""]];
  while (stack.length > 0) {
    const [value, at] = stack.pop()!;
    if (typeof value === "string" && hasLoneSurrogate(value)) {
      throw new RuntimeError("invalid_argument", `argument "body": ${at === "" ? "it" : `the value at ${showValue(at)}`} holds a lone UTF-16 surrogate, which is not text that can be sent`);
    }
    if (typeof value !== "object" || value === null) continue;
    for (const [k, v] of Object.entries(value)) {
      const path = `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      if (hasLoneSurrogate(k)) throw new RuntimeError("invalid_argument", `argument "body": the key at ${showValue(path)} holds a lone UTF-16 surrogate, which is not text that can be sent`);
      stack.push([v, path]);
    }
  }
  return body;
}
