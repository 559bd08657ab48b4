// `hcp audit`: the audit log (§7.1), one line per decision (or the entries as JSON), optionally since a time.

import type { Context } from "../../framework/index.js";
import { escapeForPerson, forPerson } from "../../runtime/approval/show.js";
import { auditPathOf, readAudit, type AuditEntry } from "../../runtime/audit.js";
import { TransportError } from "../../transports/errors.js";
import { optionalString } from "../flags.js";

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--since D` as a time in ms: a duration back from now (90s, 15m, 2h, 7d) or a date/time. */
export function sinceOf(d: string | undefined, nowMs: number): number {
  if (d === undefined) return -Infinity;
  const m = /^([0-9]+)([smhd])$/.exec(d.trim());
  if (m !== null) return nowMs - Number(m[1]) * UNITS[m[2]!]!;
  const t = Date.parse(d);
  if (Number.isNaN(t)) throw new TransportError("usage", `--since ${JSON.stringify(d)}: expected a duration (90s, 15m, 2h, 7d) or a date/time (2026-12-01, 2026-12-01T09:00:00Z)`);
  return t;
}

function line(e: AuditEntry): string {
  const what = e.verb === null ? "(pass-through)" : e.verb;
  const outcome = e.exit_code !== null ? ` exit ${e.exit_code}` : "";
  const took = e.duration_ms !== null ? ` ${e.duration_ms} ms` : "";
  const reason = e.reason !== undefined ? ` (${e.reason})` : "";
  // Each argument as a plan shows it: a look-alike (Cyrillic `а` in `аlice`) with its escaped form beside it.
  const argv = Array.isArray(e.argv) ? e.argv.map((a) => forPerson(JSON.stringify(a))).join(" ") : "";
  return escapeForPerson(`${e.time}  ${e.decision}${reason}${e.by ? ` by ${e.by}` : ""}  ${e.transport}${e.client_address ? ` from ${e.client_address}` : ""} ${e.pack} ${what}${outcome}${took}  ${e.plan_id ?? "-"}  ${argv}`);
}

export async function auditHandler(ctx: Context): Promise<void> {
  const path = auditPathOf(optionalString(ctx, "audit"), process.env);
  if (path === null) throw new TransportError("usage", "--audit none: there is no audit log to show");
  const since = sinceOf(optionalString(ctx, "since"), Date.now());
  const { entries, unreadable } = readAudit(path);
  const shown = entries.filter((e) => Date.parse(e.time) >= since);
  if (unreadable > 0) process.stderr.write(`Warning: ${unreadable} line(s) of ${path} are not audit entries; skipped\n`);
  // Arguments the agent chose, reviewed by a person: escaped in JSON as in text.
  const human = () => (shown.length === 0 ? `No entries in ${path}.\n` : shown.map(line).join("\n") + "\n");
  await ctx.writeOutput({ model: { log: path, entries: shown }, human, visible: true });
}
