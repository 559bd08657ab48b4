// The one error model of the transports: every failure as {code, message}, and the CLI exit code of each code.

import { ApprovalError } from "../runtime/approval/store.js";
import { RuntimeError } from "../runtime/errors.js";

/** Codes the transports add to the runtime's own. */
export type TransportErrorCode =
  | "usage"
  | "invalid_request"
  | "request_too_large"
  | "unknown_pack"
  | "unknown_tool"
  | "transport_not_allowed"
  | "plane_not_allowed"
  | "tool_name_collision"
  | "no_harness"
  | "internal";

/** A failure of a transport itself (a request it cannot route, a pack it may not serve). */
export class TransportError extends Error {
  override name = "TransportError";
  constructor(
    readonly code: TransportErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export interface ErrorBody {
  code: string;
  message: string;
  /** The plan an approval error is about (approval_required: the id the retry restates once a person approved it). */
  plan_id?: string;
}

/**
 * Any thrown value as `{code, message}` (and `plan_id` of an approval error): runtime and transport errors keep theirs;
 * anything else is `internal`, one line, no stack.
 */
export function errorBody(err: unknown): ErrorBody {
  if (err instanceof ApprovalError && err.plan_id !== null) return { code: err.code, message: err.message, plan_id: err.plan_id };
  if (err instanceof RuntimeError || err instanceof TransportError) return { code: err.code, message: err.message };
  const message = err instanceof Error ? err.message : String(err);
  return { code: "internal", message: `internal error: ${message.split("\n")[0]}` };
}

export { jsonSyntax } from "../json/parse-error.js";

/** Machine error code → exit code (rungrad-spec/1: 1 usage, 2 runtime, 3 credentials, 4 forbidden, 5 not found); docs/reference/error-codes.md is generated from it. */
export const EXIT_CODES: Readonly<Record<string, number>> = {
  usage: 1,
  invalid_request: 1,
  invalid_args: 1,
  invalid_argument: 1,
  missing_argument: 1,
  flag_injection: 1,
  nul_in_argument: 1,
  invalid_template: 1,
  invalid_pack: 1,
  subcommand_not_allowed: 1,
  too_many_arguments: 1,
  tool_name_collision: 1,
  not_executable: 2,
  spawn_failed: 2,
  cancelled: 2,
  internal: 2,
  credentials_unavailable: 3,
  credentials_insecure: 3,
  credentials_invalid: 3,
  denied: 4,
  write_not_allowed: 4,
  confirmation_required: 4,
  confirmation_mismatch: 4,
  confirmation_declined: 4,
  approval_required: 4,
  approver_failed: 4,
  approval_tampered: 4,
  plan_id_malformed: 4,
  plan_id_unknown: 4,
  plan_id_expired: 4,
  plan_id_used: 4,
  state_insecure: 4,
  state_unavailable: 4,
  audit_unavailable: 4,
  not_a_terminal: 4,
  pack_untrusted: 4,
  pack_changed: 4,
  transport_not_allowed: 4,
  plane_not_allowed: 4,
  unknown_pack: 5,
  unknown_tool: 5,
  unknown_verb: 5,
  program_not_found: 5,
  no_harness: 5,
};

export function exitCodeOf(code: string): number {
  return EXIT_CODES[code] ?? 2;
}

/** The exit code of an HTTP result (§6.7): 0 on 2xx, 5 on 404, 3 on 401/403, 6 on 429, 2 otherwise. */
export function httpExitCode(status: number | null): number {
  if (status !== null && status >= 200 && status <= 299) return 0;
  if (status === 404) return 5;
  if (status === 401 || status === 403) return 3;
  if (status === 429) return 6;
  return 2;
}

/** The exit code of a finished child: its own, 124 when timed out, 128 + n when killed by signal n. */
export function childExitCode(r: { exit_code: number | null; signal: string | null; timed_out: boolean }, signals: Readonly<Record<string, number>>): number {
  if (r.timed_out) return 124;
  if (r.exit_code !== null) return r.exit_code;
  const n = r.signal === null ? undefined : signals[r.signal];
  return n === undefined ? 2 : 128 + n;
}
