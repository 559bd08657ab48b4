// --jq (real jq via the lazily loaded jq-wasm, printed and worded as Go's gojq: gojq.ts) and --template (rungrad's own small template language) over machine output.
// The template language (not Go's text/template, though it reads alike) is specified in README.md, "--template language".

import { compactJSON, compareBytes, JsonNumber } from "../json/stable.js";
import { errorMessage, RungradError, ExitCode } from "./errors.js";
import { gojqCompileError, gojqOutput, gojqRunError } from "./gojq.js";

type JqModule = { raw(data: string, filter: string, flags?: string[]): Promise<string> };
let jqModule: Promise<JqModule> | null = null;
const loadJq = (): Promise<JqModule> => (jqModule ??= import("jq-wasm") as Promise<JqModule>);

/** Calls jq; its Emscripten runtime sets process.exitCode to jq's status, which is restored here. */
async function callJq(data: string, expr: string, flags: string[]): Promise<string> {
  const jq = await loadJq();
  const saved = process.exitCode;
  try {
    return await jq.raw(data, expr.trim() === "" ? "." : expr, flags);
  } finally {
    process.exitCode = saved;
  }
}

/** jq's failure as Go's: a query that does not compile (exit 1) or one that fails on the data (exit 2). */
function jqFailure(err: unknown): RungradError {
  const msg = errorMessage(err).trim();
  if (/compile error/.test(msg)) return new RungradError(ExitCode.Usage, `invalid --jq expression: ${gojqCompileError(msg)}`);
  return new RungradError(ExitCode.API, `--jq expression failed: ${gojqRunError(msg)}`);
}

/** Rejects a jq expression that does not compile (exit 1, `invalid --jq expression: …`). */
export async function validateJq(expr: string): Promise<void> {
  try {
    await callJq("null", expr, ["-c"]);
  } catch (err) {
    const failure = jqFailure(err);
    if (failure.exitCode === ExitCode.Usage) throw failure;
  }
}

/** Runs jq over stable JSON; each result as gojq.Marshal writes it, one per line. */
export async function runJq(stableJson: string, expr: string): Promise<string> {
  let out: string;
  try {
    out = await callJq(stableJson, expr, ["-c"]);
  } catch (err) {
    throw jqFailure(err);
  }
  return gojqOutput(out);
}

type Node =
  | { kind: "text"; text: string }
  | { kind: "value"; expr: Expr }
  | { kind: "range"; expr: Expr; body: Node[] }
  | { kind: "if"; expr: Expr; whenTrue: Node[]; whenFalse: Node[] };
type Expr = { kind: "path"; keys: string[] } | { kind: "string"; value: string };

class TemplateError extends Error {}

/** Parses a template; syntax errors give exit 1 `invalid --template: …`. */
export function parseTemplate(text: string): Node[] {
  try {
    return parseNodes(text);
  } catch (err) {
    throw new RungradError(ExitCode.Usage, `invalid --template: ${(err as Error).message}`);
  }
}

/** Renders a machine value; failures give exit 2 `--template rendering failed: …`. */
export function renderTemplate(text: string, value: unknown): string {
  const nodes = parseTemplate(text);
  let out: string;
  try {
    out = exec(nodes, value);
  } catch (err) {
    throw new RungradError(ExitCode.API, `--template rendering failed: ${(err as Error).message}`);
  }
  return out.replace(/\n+$/, "") + "\n";
}

function parseNodes(text: string): Node[] {
  const tokens: ({ text: string } | { action: string })[] = [];
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf("{{", i);
    if (open < 0) {
      tokens.push({ text: text.slice(i) });
      break;
    }
    let lit = text.slice(i, open);
    let start = open + 2;
    if (text.startsWith("- ", start)) {
      lit = lit.replace(/\s+$/, "");
      start += 2;
    }
    tokens.push({ text: lit });
    const close = findClose(text, start);
    if (close < 0) throw new TemplateError("unclosed action");
    let end = close;
    let trimAfter = false;
    if (text.slice(close - 2, close) === " -") {
      end = close - 2;
      trimAfter = true;
    }
    tokens.push({ action: text.slice(start, end).trim() });
    i = close + 2;
    if (trimAfter) while (i < text.length && /\s/.test(text[i]!)) i++;
  }
  let pos = 0;
  const block = (terminators: string[]): [Node[], string] => {
    const nodes: Node[] = [];
    while (pos < tokens.length) {
      const t = tokens[pos++]!;
      if ("text" in t) {
        if (t.text) nodes.push({ kind: "text", text: t.text });
        continue;
      }
      const a = t.action;
      if (terminators.includes(a)) return [nodes, a];
      if (a.startsWith("range ")) {
        const [body] = block(["end"]);
        nodes.push({ kind: "range", expr: parseExpr(a.slice(6)), body });
      } else if (a.startsWith("if ")) {
        const [thenPart, term] = block(["else", "end"]);
        const [els] = term === "else" ? block(["end"]) : [[] as Node[]];
        nodes.push({ kind: "if", expr: parseExpr(a.slice(3)), whenTrue: thenPart, whenFalse: els });
      } else if (a === "end" || a === "else") {
        throw new TemplateError(`unexpected {{${a}}}`);
      } else nodes.push({ kind: "value", expr: parseExpr(a) });
    }
    if (terminators.length > 0) throw new TemplateError("unexpected EOF");
    return [nodes, ""];
  };
  return block([])[0];
}

function findClose(text: string, from: number): number {
  let inString = false;
  for (let i = from; i < text.length - 1; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "}" && text[i + 1] === "}") return i;
  }
  return -1;
}

function parseExpr(src: string): Expr {
  const s = src.trim();
  if (s.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(s)) throw new TemplateError(`bad string literal ${s}`);
    const value = s.slice(1, -1).replace(/\\(.)/g, (_m, ch: string) => ({ n: "\n", t: "\t", r: "\r" })[ch as "n"] ?? ch);
    return { kind: "string", value };
  }
  if (s === ".") return { kind: "path", keys: [] };
  if (/^(\.[A-Za-z_][A-Za-z0-9_]*)+$/.test(s)) return { kind: "path", keys: s.slice(1).split(".") };
  throw new TemplateError(`unsupported action {{${s}}}`);
}

function fieldOf(v: unknown, key: string): unknown {
  if (v instanceof Map) {
    if (!v.has(key)) throw new TemplateError(`map has no entry for key "${key}"`);
    return v.get(key);
  }
  if (v && typeof v === "object" && !Array.isArray(v) && !(v instanceof JsonNumber)) {
    const o = v as Record<string, unknown>;
    if (!Object.prototype.hasOwnProperty.call(o, key) || o[key] === undefined) throw new TemplateError(`map has no entry for key "${key}"`);
    return o[key];
  }
  throw new TemplateError(`can't evaluate field ${key} in type ${v === null ? "nil" : Array.isArray(v) ? "array" : typeof v}`);
}

function evaluate(e: Expr, dot: unknown): unknown {
  if (e.kind === "string") return e.value;
  return e.keys.reduce(fieldOf, dot);
}

function truthy(v: unknown): boolean {
  if (v === null || v === undefined || v === false || v === "" || v === 0) return false;
  if (v instanceof JsonNumber) return Number(v.literal) !== 0;
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof Map) return v.size > 0;
  if (typeof v === "object") return Object.values(v as object).some((x) => x !== undefined);
  return true;
}

function items(v: unknown): unknown[] {
  if (Array.isArray(v)) return v;
  if (v instanceof Map) return [...v.keys()].sort(compareBytes).map((k) => v.get(k));
  if (v && typeof v === "object" && !(v instanceof JsonNumber)) {
    const o = v as Record<string, unknown>;
    return Object.keys(o).filter((k) => o[k] !== undefined).sort(compareBytes).map((k) => o[k]);
  }
  if (v === null || v === undefined) return [];
  throw new TemplateError(`range can't iterate over ${String(v)}`);
}

function show(v: unknown): string {
  if (v === null || v === undefined) return "<no value>";
  if (typeof v === "string") return v;
  if (v instanceof JsonNumber) return v.literal;
  if (typeof v === "object") return compactJSON(v);
  return String(v);
}

function exec(nodes: Node[], dot: unknown): string {
  let out = "";
  for (const n of nodes) {
    switch (n.kind) {
      case "text":
        out += n.text;
        break;
      case "value":
        out += show(evaluate(n.expr, dot));
        break;
      case "range":
        for (const item of items(evaluate(n.expr, dot))) out += exec(n.body, item);
        break;
      case "if":
        out += exec(truthy(evaluate(n.expr, dot)) ? n.whenTrue : n.whenFalse, dot);
        break;
    }
  }
  return out;
}
