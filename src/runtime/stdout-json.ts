// The `json` field of a program's result (§6.5): stdout parsed when it is exactly one JSON value, numbers
// kept exact, and nothing nested deeper than MAX_JSON_DEPTH (as for an HTTP body, openapi/result.ts): 30 KB
// of brackets would print as hundreds of megabytes indented, and crash a client that walks it recursively.
// Output nested deeper is left as text, like any output that is not JSON.

import { parseJSONLiteral } from "../json/literal.js";
import { setOwn } from "../json/own.js";
import { JsonNumber } from "../json/stable.js";
import { MAX_JSON_DEPTH } from "../pack/load.js";

/**
 * The value of a text that is exactly one JSON value (surrounding whitespace allowed), or undefined. Numbers
 * keep their literal (JsonNumber): 9007199254740993 is not rounded.
 */
export function stdoutJson(text: string): { value: unknown } | undefined {
  // Most output is not JSON, and most of that shows it at its first character: no parse (and error) needed.
  if (!/^\s*[[{"\-0-9tfn]/.test(text)) return undefined;
  try {
    return { value: plain(parseJSONLiteral(text), 0) };
  } catch {
    return undefined; // not JSON, or nested too deep
  }
}

class TooDeep extends Error {}

/**
 * The reader's value as ordinary JSON values: plain objects in the child's key order ("__proto__" stays a key)
 * and numbers, except a number a double cannot hold exactly, which stays a JsonNumber (its literal). `depth`
 * counts the arrays and objects around `v`; one past MAX_JSON_DEPTH throws TooDeep (so no deep recursion either).
 */
function plain(v: unknown, depth: number): unknown {
  if (v instanceof JsonNumber) return String(Number(v.literal)) === v.literal ? Number(v.literal) : v;
  if (typeof v !== "object" || v === null) return v;
  if (depth >= MAX_JSON_DEPTH) throw new TooDeep();
  if (Array.isArray(v)) return v.map((item) => plain(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v)) setOwn(out, k, plain(item, depth + 1));
  return out;
}
