// Result renderers with Go rungrad's bytes: dry-run previews, tables, mutation summaries, {data, meta}, control-byte sanitising.

import { compareBytes, dictionary, stableJSON } from "../json/stable.js";

/** Styling for human output: ANSI+Color styles labels; Sanitize strips control bytes. */
export interface TerminalMode {
  ansi: boolean;
  color: boolean;
  sanitize: boolean;
}
const PLAIN_MODE: TerminalMode = { ansi: false, color: false, sanitize: false };

const RESET = "\x1b[0m";
const DRY_RUN_STYLE = "\x1b[1;33m";
const MUTATION_STYLE = "\x1b[1;32m";
const styled = (m: TerminalMode): boolean => m.ansi && m.color;

/** One named value of a previewed request; secret values print as `***`. */
export interface Field {
  name: string;
  value: string;
  secret?: boolean;
}

/** A write that would happen under --dry-run. */
export interface DryRunPreview {
  method: string;
  path: string;
  query?: Field[];
  body?: Field[];
  idempotency?: string;
}

const display = (f: Field): string => (f.secret ? "***" : f.value);

function fieldMap(fields: Field[] | undefined): Record<string, string> | undefined {
  if (!fields || fields.length === 0) return undefined;
  const out = dictionary<string>();
  for (const f of fields) out[f.name] = display(f);
  return out;
}

/** The machine value of a preview: `{"dry_run": true, "method", "path", "query"?, "body"?, "idempotency"?}`. */
export function previewModel(p: DryRunPreview): Record<string, unknown> {
  return {
    dry_run: true,
    method: p.method,
    path: p.path,
    query: fieldMap(p.query),
    body: fieldMap(p.body),
    idempotency: p.idempotency || undefined,
  };
}

/** StableJSON of the preview (secret fields as `***`). */
export function previewJSON(p: DryRunPreview): string {
  return stableJSON(previewModel(p));
}

/** `DRY RUN: would METHOD path`, query/body/idempotency lines, `  no changes were made`. */
export function previewText(p: DryRunPreview, mode: TerminalMode = PLAIN_MODE): string {
  const label = styled(mode) ? DRY_RUN_STYLE + "DRY RUN" + RESET : "DRY RUN";
  let s = `${label}: would ${p.method.toUpperCase()} ${p.path}\n`;
  if (p.query && p.query.length > 0) s += "  query:\n" + p.query.map((f) => `    ${f.name} = ${display(f)}\n`).join("");
  if (p.body && p.body.length > 0) s += "  body:\n" + p.body.map((f) => `    ${f.name} = ${display(f)}\n`).join("");
  if (p.idempotency) s += `  idempotency: ${p.idempotency}\n`;
  return s + "  no changes were made\n";
}

/** The outcome of a write; JSON drops empty fields (Go omitempty). */
export interface MutationSummary {
  action: string;
  resource: string;
  name?: string;
  id?: string;
  fields?: Record<string, string>;
  notes?: string[];
}

/** The wire model of a summary, in Go's field order without empty fields. */
export function mutationModel(m: MutationSummary): Record<string, unknown> {
  const fields = m.fields && Object.keys(m.fields).length > 0 ? Object.assign(dictionary<string>(), m.fields) : undefined;
  return {
    action: m.action,
    resource: m.resource,
    name: m.name || undefined,
    id: m.id || undefined,
    fields,
    notes: m.notes && m.notes.length > 0 ? m.notes : undefined,
  };
}

/** `Created item gamma`, `Deleted item (1)`, then sorted fields and notes. */
export function mutationText(m: MutationSummary, mode: TerminalMode = PLAIN_MODE): string {
  let head = styled(mode) && m.action ? MUTATION_STYLE + m.action + RESET : m.action;
  if (m.resource) head += " " + m.resource;
  if (m.name) head += " " + (/[ \t]/.test(m.name) ? `"${m.name}"` : m.name);
  if (m.id) head += ` (${m.id})`;
  let s = head + "\n";
  for (const k of Object.keys(m.fields ?? {}).sort(compareBytes)) s += `  ${k}: ${m.fields![k]}\n`;
  for (const n of m.notes ?? []) s += `  ${n}\n`;
  return s;
}

/** A table rendered like Go's tabwriter(minwidth 0, tabwidth 2, padding 2, ' '). */
export function tableText(columns: string[], rows: string[][], empty = "No results."): string {
  if (rows.length === 0) return empty + "\n";
  const lines = columns.length > 0 ? [columns, ...rows] : rows;
  const widths: number[] = [];
  for (const cells of lines) cells.slice(0, -1).forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  return lines.map((cells) => cells.map((c, i) => (i < cells.length - 1 ? c + " ".repeat(widths[i]! + 2 - [...c].length) : c)).join("") + "\n").join("");
}

/** Response metadata of the `{data, meta}` envelope; field order is the wire order. */
export interface Meta {
  request_id?: string;
  request_ids?: string[];
  pagination?: {
    page?: number;
    per_page?: number;
    total_pages?: number;
    total_items?: number;
    next_cursor?: string;
    prev_cursor?: string;
    has_more?: boolean;
  };
  rate_limit?: { limit?: number; remaining?: number; reset?: number; raw?: Record<string, string> };
  retry?: { attempts?: number; waits_ms?: number[] };
  idempotency?: { key?: string; replayed?: boolean };
  extra?: Record<string, unknown>;
}

/** A Go map: sorted keys, omitted when empty. */
const dict = (o: Record<string, unknown> | undefined) => (o && Object.keys(o).length > 0 ? Object.assign(dictionary<unknown>(), o) : undefined);

/** The meta object in wire order; maps (raw, extra) sort their keys. */
export function metaModel(m: Meta = {}): Record<string, unknown> {
  const p = m.pagination;
  const r = m.rate_limit;
  return {
    request_id: m.request_id || undefined,
    request_ids: m.request_ids && m.request_ids.length > 0 ? m.request_ids : undefined,
    pagination: p && {
      page: p.page,
      per_page: p.per_page,
      total_pages: p.total_pages,
      total_items: p.total_items,
      next_cursor: p.next_cursor || undefined,
      prev_cursor: p.prev_cursor || undefined,
      has_more: p.has_more,
    },
    rate_limit: r && { limit: r.limit, remaining: r.remaining, reset: r.reset, raw: dict(r.raw) },
    retry: m.retry && { attempts: m.retry.attempts || undefined, waits_ms: m.retry.waits_ms?.length ? m.retry.waits_ms : undefined },
    idempotency: m.idempotency && { key: m.idempotency.key || undefined, replayed: m.idempotency.replayed },
    extra: dict(m.extra),
  };
}

/** The characters that start a removed run: C0 controls but tab and newline, DEL, and C1 (ESC and CSI/OSC included). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Removes ANSI sequences and control bytes (keeping tab and newline, and turning CRLF into LF); a
 * removed run becomes one space, and swallows one space after it. Text without control characters
 * comes back as is; otherwise the text between them is copied in slices (linear in the length).
 */
export function sanitizeControl(s: string): string {
  CONTROL.lastIndex = 0;
  let m = CONTROL.exec(s);
  if (m === null) return s;
  let out = "";
  let copied = 0; // s before this index is in out already, or removed
  let lastOut = -1; // the last character code written (reading it back from out would flatten it)
  while (m !== null) {
    const i = m.index;
    if (i > copied) {
      out += s.slice(copied, i);
      lastOut = s.charCodeAt(i - 1);
    }
    const c = s.charCodeAt(i);
    if (c === 0x0d && s.charCodeAt(i + 1) === 0x0a) {
      copied = i + 1;
    } else {
      if (lastOut !== 0x20 && lastOut !== 0x09 && lastOut !== 0x0a) {
        out += " ";
        lastOut = 0x20;
      }
      const next = controlEnd(s, i, c);
      copied = s.charCodeAt(next) === 0x20 ? next + 1 : next;
    }
    CONTROL.lastIndex = copied;
    m = CONTROL.exec(s);
  }
  return out + s.slice(copied);
}

/** Where the control sequence starting at i (with code c) ends. */
function controlEnd(s: string, i: number, c: number): number {
  if (c === 0x1b) {
    const d = s[i + 1];
    if (d === "[") return csiEnd(s, i + 2);
    if (d === "]" || d === "P" || d === "^" || d === "_" || d === "X") return stringControlEnd(s, i + 2);
    return Math.min(s.length, i + 2);
  }
  if (c === 0x9b) return csiEnd(s, i + 1);
  if (c === 0x9d) return stringControlEnd(s, i + 1);
  return i + 1;
}

function csiEnd(s: string, i: number): number {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x40 && c <= 0x7e) return i + 1;
  }
  return s.length;
}

function stringControlEnd(s: string, i: number): number {
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x07 || c === 0x9c) return i + 1;
    if (c === 0x1b && s[i + 1] === "\\") return i + 2;
  }
  return s.length;
}
