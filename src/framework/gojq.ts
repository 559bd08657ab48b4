// What Go rungrad's --jq prints, reproduced over jq-wasm: gojq's encoding of results
// (gojq.Marshal) and gojq's texts for the errors whose jq wording differs.
//
// Go runs itchyny/gojq; we run jq 1.7 compiled to WebAssembly. jq's output is read back and
// written again as gojq writes it: numbers normalised as gojq normalises its input (an integer
// literal stays exact, any other becomes a float64, ±Inf clamps to ±MaxFloat64, shortest form,
// exponent only below 1e-6 or from 1e21), strings with only ", \, control bytes and DEL escaped,
// object keys sorted by bytes. Error texts are mapped where jq's and gojq's differ in a known way;
// any other jq message is kept, without jq's location decorations.

import { JsonCursor } from "../json/literal.js";
import { compareBytes, JsonNumber } from "../json/stable.js";

const HEX = "0123456789abcdef";
const SHORT_ESCAPES: Record<number, string> = { 0x22: '\\"', 0x5c: "\\\\", 0x08: "\\b", 0x0c: "\\f", 0x0a: "\\n", 0x0d: "\\r", 0x09: "\\t" };

/** gojq's encodeString: printable ASCII and all non-ASCII raw; ", \ and the C0/DEL bytes escaped. */
function encodeString(s: string): string {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let escaped: string | undefined;
    if (c < 0x20 || c === 0x22 || c === 0x5c || c === 0x7f) escaped = SHORT_ESCAPES[c] ?? "\\u00" + HEX[c >> 4]! + HEX[c & 0xf]!;
    else if (c >= 0xd800 && c <= 0xdfff) {
      const pair = c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
      if (pair) i++;
      else escaped = "\\ufffd"; // no UTF-8 form: gojq writes an invalid byte so
    }
    if (escaped === undefined) continue;
    out += s.slice(start, i) + escaped;
    start = i + 1;
  }
  return out + s.slice(start) + '"';
}

const MAX_FLOAT64 = 1.7976931348623157e308;

/** gojq's number for a JSON number literal (normalizeNumber, then encodeFloat64 or the exact integer). */
export function gojqNumber(literal: string): string {
  if (/^-?\d+$/.test(literal)) return BigInt(literal).toString();
  const f = Math.min(Math.max(Number(literal), -MAX_FLOAT64), MAX_FLOAT64);
  const x = Math.abs(f);
  if (x !== 0 && (x < 1e-6 || x >= 1e21)) return f.toExponential(); // JS's shortest, as Go's 'e' after gojq trims e-07 to e-7
  return Object.is(f, -0) ? "-0" : String(f);
}

/** gojq.Marshal of a value read by JsonCursor (strings, booleans, null, JsonNumber, arrays, dictionaries). */
export function gojqMarshal(v: unknown): string {
  if (v === null) return "null";
  if (typeof v === "string") return encodeString(v);
  if (typeof v === "boolean") return String(v);
  if (v instanceof JsonNumber) return gojqNumber(v.literal);
  if (Array.isArray(v)) return "[" + v.map(gojqMarshal).join(",") + "]";
  const o = v as Record<string, unknown>;
  return "{" + Object.keys(o).sort(compareBytes).map((k) => encodeString(k) + ":" + gojqMarshal(o[k])).join(",") + "}";
}

/** jq's `-c` output (one JSON text per result) written again as Go rungrad writes gojq's results: one per line. */
export function gojqOutput(jqOutput: string): string {
  const cursor = new JsonCursor(jqOutput);
  let out = "";
  while (cursor.skipSpace() !== -1) out += gojqMarshal(cursor.readValue()) + "\n";
  return out;
}

/** The first line of a jq message without `jq: error: ` and the `(Unix shell quoting issues?) at <top-level>, line 1:` tail. */
function bare(message: string): string {
  return message
    .split("\n")[0]!
    .replace(/^jq: error: /, "")
    .replace(/ \(Unix shell quoting issues\?\)/, "")
    .replace(/ at <top-level>, line \d+:$/, "");
}

/** gojq's text for a query that does not compile, from jq's compile error. */
export function gojqCompileError(message: string): string {
  const text = bare(message);
  let m: RegExpMatchArray | null;
  if (text.startsWith("syntax error, unexpected end of file, expecting QQSTRING")) return "unterminated string literal";
  if (text.startsWith("syntax error, unexpected end of file")) return "unexpected EOF";
  if ((m = /^Invalid escape at line \d+, column (\d+) \(while parsing '(.*)'\)/.exec(text))) {
    const column = Number(m[1]);
    return `invalid escape sequence "${m[2]!.slice(column - 3, column - 1)}" in string literal`;
  }
  if ((m = /^(\S+\/\d+) is not defined/.exec(text))) return `function not defined: ${m[1]}`;
  if ((m = /^(\$\S+) is not defined/.exec(text))) return `variable not defined: ${m[1]}`;
  return text;
}

/** gojq's text for a query that fails while it runs, from jq's runtime error. */
export function gojqRunError(message: string): string {
  const first = message.replace(/\n+$/, "");
  let m: RegExpMatchArray | null;
  // error(v): gojq says `error: <v>`, a string raw and any other value as gojq encodes it.
  if ((m = /^jq: error \(at [^)]*\) \(not a string\): ([\s\S]*)$/.exec(first))) return "error: " + gojqOutput(m[1]!).replace(/\n$/, "");
  if ((m = /^jq: error \(at [^)]*\): ([\s\S]*)$/.exec(first))) return gojqErrorText(m[1]!);
  return first;
}

/**
 * jq reports error("…") and its own failures alike. Its own start with `Cannot`, `Invalid` or
 * `Out of bounds`, or describe a value with its type (`number (1) and string ("a") cannot be
 * subtracted`); those are kept (gojq words them differently). Anything else came from error("…").
 */
function gojqErrorText(text: string): string {
  if (/^(Cannot |Invalid |Out of bounds )/.test(text) || /\((null|boolean|number|string|array|object)\)/.test(text)) return text;
  return "error: " + text;
}
