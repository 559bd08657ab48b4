// Whether a JSON text says the same to a reader that parses it as JavaScript does (JSON.parse, then the value sent as
// UTF-8): every number a double keeps (not an integer past 2^53, a snowflake id rounded to a neighbour, nor more than
// 15 significant digits, nor `1e400`, written as null, `1e-400` or `-0`, written as 0), no key given twice (such a
// reader keeps the last), no escaped surrogate (a lone one is written as U+FFFD). One parse. Pure.

import { parseJSONLiteral } from "./literal.js";
import { JsonNumber } from "./stable.js";

/** Whether `text` is one JSON value that a JavaScript reader takes in whole; false too for what is not JSON. */
export function readsAsWritten(text: string): boolean {
  // Surrogates escaped in its strings, pairs too (to be sure: a pair is rare in output, which writes the character).
  if (/\\u[dD][89a-fA-F]/.test(text)) return false;
  let value: unknown;
  try {
    value = parseJSONLiteral(text, { rejectDuplicates: true });
  } catch {
    return false;
  }
  const pending = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (v instanceof JsonNumber) {
      if (!doubleKeeps(v.literal)) return false;
    } else if (Array.isArray(v)) pending.push(...(v as unknown[]));
    else if (typeof v === "object" && v !== null) pending.push(...Object.values(v));
  }
  return true;
}

/** Whether a JSON number reads back as written through a double: finite, not -0, at most 15 significant digits. */
function doubleKeeps(literal: string): boolean {
  const n = Number(literal);
  if (!Number.isFinite(n) || Object.is(n, -0)) return false;
  const digits = literal.replace(/^-/, "").replace(/[eE].*$/, "").replace(".", "").replace(/^0+/, "").replace(/0+$/, "");
  return n === 0 ? digits === "" : digits.length <= 15;
}
