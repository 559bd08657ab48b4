// Go's %q verb (strconv.Quote), which rungrad's error texts use to quote names and values.

const PRINTABLE = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const HEX = "0123456789abcdef";

/** strconv.Quote: a double-quoted Go string literal; printable Unicode stays raw. */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (ch === '"' || ch === "\\") {
      out += "\\" + ch;
    } else if (cp >= 0xd800 && cp <= 0xdfff) {
      // A lone surrogate is invalid UTF-8 once encoded; Go decodes it as U+FFFD.
      out += "\ufffd";
    } else if (PRINTABLE.test(ch)) {
      out += ch;
    } else {
      out += escapeRune(cp);
    }
  }
  return out + '"';
}

function escapeRune(cp: number): string {
  switch (cp) {
    case 0x07:
      return "\\a";
    case 0x08:
      return "\\b";
    case 0x0c:
      return "\\f";
    case 0x0a:
      return "\\n";
    case 0x0d:
      return "\\r";
    case 0x09:
      return "\\t";
    case 0x0b:
      return "\\v";
  }
  if (cp < 0x20 || cp === 0x7f) return "\\x" + HEX[cp >> 4]! + HEX[cp & 0xf]!;
  if (cp < 0x10000) return "\\u" + cp.toString(16).padStart(4, "0");
  return "\\U" + cp.toString(16).padStart(8, "0");
}

// Go's unicode.IsSpace is exactly the Unicode White_Space property; spelled out (not \p{White_Space})
// because a plain character class is much faster to test.
const GO_SPACE_CLASS = "[\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000]";
const GO_SPACE = new RegExp(`^${GO_SPACE_CLASS}$`);
const GO_SPACE_ANYWHERE = new RegExp(GO_SPACE_CLASS);
const GO_SPACE_RUNS = new RegExp(`${GO_SPACE_CLASS}+`);

/** Go's unicode.IsSpace. */
export function isGoSpace(ch: string): boolean {
  return GO_SPACE.test(ch);
}

/** strings.IndexFunc(s, unicode.IsSpace) != -1. */
export function hasGoSpace(s: string): boolean {
  return GO_SPACE_ANYWHERE.test(s);
}

/** Go's strings.Fields: split around runs of unicode.IsSpace. */
export function goFields(s: string): string[] {
  return s.split(GO_SPACE_RUNS).filter((f) => f !== "");
}
