// Per-run secret registry: removes registered secrets from text and (string-aware) from JSON.

import { compareBytes, quoteJSON } from "../json/stable.js";

/** What every redacted occurrence becomes; it has no JSON metacharacters. */
export const REDACTED = "[REDACTED]";
const MIN_LEN = 5;

export class Redactor {
  private readonly secrets = new Set<string>();
  private textNeedles: string[] | null = null;
  private jsonNeedles: string[] | null = null;

  /** Registers a secret; empty, blank and shorter-than-5 values are ignored. */
  add(value: string): void {
    if (value.length < MIN_LEN || value.trim() === "" || this.secrets.has(value)) return;
    this.secrets.add(value);
    this.textNeedles = this.jsonNeedles = null;
  }

  /** No secret is registered: text and JSON pass through unchanged. */
  isEmpty(): boolean {
    return this.secrets.size === 0;
  }

  /** Free text: raw and JSON-escaped spellings are replaced. */
  text(s: string): string {
    if (this.secrets.size === 0 || s === "") return s;
    this.textNeedles ??= sortNeedles([...this.secrets].flatMap((v) => [v, ...escapedForms(v)]));
    for (const n of this.textNeedles) s = s.split(n).join(REDACTED);
    return s;
  }

  /** JSON: only string-literal contents are rewritten, so the document stays valid. */
  json(s: string): string {
    if (this.secrets.size === 0 || s === "") return s;
    this.jsonNeedles ??= sortNeedles([...this.secrets].flatMap(escapedForms));
    const needles = this.jsonNeedles;
    let out = "";
    let inString = false;
    for (let i = 0; i < s.length; ) {
      const c = s[i]!;
      if (!inString) {
        out += c;
        if (c === '"') inString = true;
        i++;
        continue;
      }
      const hit = needles.find((n) => s.startsWith(n, i));
      if (hit !== undefined) {
        out += REDACTED;
        i += hit.length;
        continue;
      }
      if (c === "\\") {
        const len = s[i + 1] === "u" ? 6 : 2;
        out += s.slice(i, i + len);
        i += len;
      } else {
        if (c === '"') inString = false;
        out += c;
        i++;
      }
    }
    return out;
  }
}

function escapedForms(v: string): string[] {
  const html = quoteJSON(v).slice(1, -1);
  const plain = html.replace(/\\u003c/g, "<").replace(/\\u003e/g, ">").replace(/\\u0026/g, "&");
  return [html, plain];
}

function sortNeedles(list: string[]): string[] {
  return [...new Set(list)].filter((n) => n !== "").sort((a, b) => b.length - a.length || compareBytes(a, b));
}
