// Bytes to text as Go's encoding/json reads them: byte by byte.
//
// Valid UTF-8 decodes as usual. Each byte that starts no valid sequence (where Go's
// utf8.DecodeRune returns RuneError with size 1) becomes one lone low surrogate U+DC00+byte,
// which no valid input can produce. The JSON reader (literal.ts) names that byte in its errors
// (`invalid character 'ÿ'`, as Go does) and turns each one into its own U+FFFD inside a string.
// A standard decoder would instead merge a truncated sequence into one U+FFFD and lose the byte.

const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const lenient = new TextDecoder("utf-8", { ignoreBOM: true });

/** The first escape code unit: U+DC80 stands for byte 0x80 … U+DCFF for 0xFF. */
const ESCAPE_BASE = 0xdc00;

/** Is `unit` the stand-in for an invalid byte (and not the low half of a surrogate pair)? */
export function escapedByte(text: string, i: number): number {
  const unit = text.charCodeAt(i);
  if (unit < 0xdc80 || unit > 0xdcff) return -1;
  const prev = i > 0 ? text.charCodeAt(i - 1) : 0;
  return prev >= 0xd800 && prev <= 0xdbff ? -1 : unit - ESCAPE_BASE;
}

/** The length of the valid UTF-8 sequence at `i` (Go's utf8.DecodeRune rules), or 0 if there is none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  let n: number;
  let lo = 0x80;
  let hi = 0xbf;
  if (b0 >= 0xc2 && b0 <= 0xdf) n = 2;
  else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    if (b0 === 0xe0) lo = 0xa0;
    else if (b0 === 0xed) hi = 0x9f; // no surrogates
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    if (b0 === 0xf0) lo = 0x90;
    else if (b0 === 0xf4) hi = 0x8f; // nothing past U+10FFFF
  } else return 0;
  if (i + n > bytes.length) return 0;
  const b1 = bytes[i + 1]!;
  if (b1 < lo || b1 > hi) return 0;
  for (let k = 2; k < n; k++) {
    const b = bytes[i + k]!;
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return n;
}

/** Decodes `bytes` for the Go-compatible JSON reader (see the top of this file). */
export function decodeGoBytes(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch {
    // Some byte is invalid: decode valid runs whole and escape each invalid byte.
  }
  let out = "";
  let run = 0;
  for (let i = 0; i < bytes.length; ) {
    const n = sequenceLength(bytes, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += lenient.decode(bytes.subarray(run, i)) + String.fromCharCode(ESCAPE_BASE + bytes[i]!);
    run = ++i;
  }
  return out + lenient.decode(bytes.subarray(run));
}
