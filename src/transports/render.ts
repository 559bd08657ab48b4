// Text forms shared by the transports: a plan for people, and the one-line summary of a result.

import type { DryRun, ExecResult } from "../runtime/execute.js";
import { isHttpResult, type HttpResult } from "../runtime/openapi/result.js";
import { planText } from "../runtime/approval/show.js";

/** How the caller restates a plan_id: a flag of `hcp run`, or an argument of an MCP tool. */
export type ConfirmForm = "flag" | "argument";

/**
 * A dry run for people: what would run (control and bidi characters escaped), and how to confirm it in the caller's
 * own terms. A write where writes are not allowed says so first: its approval alone would not let it run.
 */
export function renderPlan(d: DryRun, form: ConfirmForm, writesAllowed: boolean): string {
  const { plan, plan_id, expires_at } = d;
  const refused = plan.policy.policy === "write" && !writesAllowed;
  const again = form === "flag" ? `run it again with ${refused ? "--allow-write " : ""}--confirm ${plan_id}` : `call the tool again with the same arguments and "confirm": "${plan_id}"`;
  const lines = [`DRY RUN: would run ${planText(plan, { plan_id, expires_at })}`];
  if (refused) {
    lines.push(
      form === "flag"
        ? "  it writes: it runs only with --allow-write"
        : "  it writes, and this server was started without --allow-write: it is refused, approved or not, until a person restarts the server with --allow-write",
    );
  }
  if (plan.policy.confirm === "person") {
    lines.push(`  a person approves it in a terminal with: hcp approve ${plan_id}`, `  then ${again} (once, before it expires)`);
  } else if (plan.policy.confirm === "plan") {
    lines.push(`  confirm: ${again} (once, before it expires)`);
  }
  lines.push("  nothing was run");
  return lines.join("\n") + "\n";
}

/** How a finished child ended, in a few words. */
export function outcome(r: ExecResult): string {
  // A program that ends itself on SIGTERM (podman's events, hugo's server) exits with a code of its own, no signal.
  if (r.timed_out) return r.signal === null ? `timed out (sent SIGTERM, it exited with code ${r.exit_code})` : `timed out (killed by ${r.signal})`;
  if (r.signal !== null) return `killed by ${r.signal}`;
  return `exited with code ${r.exit_code}`;
}

/** True when a result is a failure for an agent: the child failed, was killed or timed out; the request got no 2xx. */
export function failed(r: ExecResult | HttpResult): boolean {
  if (isHttpResult(r)) return !r.ok;
  return r.timed_out || r.signal !== null || r.exit_code !== 0;
}

/** How a request ended, in a few words: `GET https://… answered 404`. */
export function httpOutcome(r: HttpResult): string {
  const what = `${r.request.method} ${r.request.url}`;
  if (r.timed_out) return `${what} timed out${r.status === null ? " before any answer" : ` while reading the ${r.status} answer`}`;
  return `${what} answered ${r.status}`;
}

/** What an agent reads of a request's result: the body as is, after the outcome when it was not a 2xx. */
export function httpText(r: HttpResult): string {
  const cut = r.body_truncated ? `\n[body truncated after ${Buffer.byteLength(r.body)} bytes]` : "";
  const paging = pagingHeaders(r).map((h) => `\n[${h}]`).join("");
  const note = r.note === undefined ? "" : `\n[${r.note}]`;
  return r.ok ? r.body + cut + paging : `${httpOutcome(r)}\n${r.body}${cut}${paging}${note}`;
}

/** The headers by which an API says there is more (GitHub's next page is only in `link`), as `name: value`. */
const PAGING_HEADERS = ["link", "x-total-count"];

/** The result's paging headers, `name: value` each: an agent that reads the text alone still learns of the next page. */
export function pagingHeaders(r: HttpResult): string[] {
  return PAGING_HEADERS.flatMap((name) => (r.headers[name] === undefined ? [] : [`${name}: ${r.headers[name]}`]));
}
