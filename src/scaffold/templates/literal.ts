// TypeScript source literals from data: strings, arrays and objects rendered deterministically, with raw code where the data holds Code.

/** A piece of source inserted verbatim (a handler, an identifier). */
export class Code {
  constructor(readonly text: string) {}
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const INLINE_MAX = 100;

/** JSON string escaping, plus U+2028/U+2029 so the literal survives any tool that treats them as line ends. */
export function str(s: string): string {
  return JSON.stringify(s).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

const key = (k: string) => (IDENT.test(k) ? k : str(k));

/** `value` as a TypeScript expression; nested lines are indented by `indent` plus two spaces per level. */
export function literal(value: unknown, indent = ""): string {
  if (value instanceof Code) return value.text.replace(/\n/g, "\n" + indent);
  if (typeof value === "string") return str(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value === null) return "null";
  const inner = indent + "  ";
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const parts = value.map((v) => literal(v, inner));
    const inline = `[${parts.join(", ")}]`;
    if (!parts.some((p) => p.includes("\n")) && inline.length + indent.length <= INLINE_MAX) return inline;
    return `[\n${parts.map((p) => `${inner}${p},\n`).join("")}${indent}]`;
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return "{}";
    const parts = entries.map(([k, v]) => `${key(k)}: ${literal(v, inner)}`);
    const inline = `{ ${parts.join(", ")} }`;
    if (!parts.some((p) => p.includes("\n")) && inline.length + indent.length <= INLINE_MAX && entries.every(([, v]) => !(v instanceof Code))) return inline;
    return `{\n${parts.map((p) => `${inner}${p},\n`).join("")}${indent}}`;
  }
  throw new Error(`scaffold: cannot render ${typeof value} as a literal`);
}
