// Go's %q verb (strconv.Quote), which rungrad's error texts use to quote names and values.

/** Made on first use: building this Unicode class costs about half a millisecond of every program's start-up. */
let printable: RegExp | undefined;
const isPrintable = (ch: string) => (printable ??= /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u).test(ch);
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
    } else if (isPrintable(ch)) {
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

/** Go's unicode.IsSpace (the Unicode White_Space property) for one UTF-16 code unit: every space is in the BMP. */
export function isGoSpaceCode(c: number): boolean {
  if (c < 0x80) return c === 0x20 || (c >= 0x09 && c <= 0x0d);
  return c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
}

/** strings.IndexFunc(s, unicode.IsSpace) != -1. */
export function hasGoSpace(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (isGoSpaceCode(s.charCodeAt(i))) return true;
  return false;
}

/** strings.TrimSpace(s) == "": s is empty or all unicode.IsSpace. */
export function isGoBlank(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (!isGoSpaceCode(s.charCodeAt(i))) return false;
  return true;
}

/** Go's strings.Fields: split around runs of unicode.IsSpace. */
export function goFields(s: string): string[] {
  const fields: string[] = [];
  let start = -1;
  for (let i = 0; i <= s.length; i++) {
    const space = i === s.length || isGoSpaceCode(s.charCodeAt(i));
    if (space && start >= 0) {
      fields.push(s.slice(start, i));
      start = -1;
    } else if (!space && start < 0) {
      start = i;
    }
  }
  return fields;
}
