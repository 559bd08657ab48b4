// Typed runtime errors: one class, stable codes, so every transport maps them once.

/** Every code a runtime error can carry. */
export type RuntimeErrorCode =
  // argv templates and substitution (§6.2)
  | "invalid_template"
  | "missing_argument"
  | "flag_injection"
  | "nul_in_argument"
  | "invalid_argument"
  // verb resolution and arguments (§6.1, §6.3)
  | "invalid_pack"
  | "unknown_verb"
  | "program_not_found"
  | "not_executable"
  | "invalid_args"
  // policy and confirmation (§4, §7)
  | "denied"
  | "write_not_allowed"
  | "confirmation_required"
  | "confirmation_mismatch"
  | "confirmation_declined"
  // approvals, plan ids and their state (§7), the audit log (§7.1)
  | "approval_required"
  | "approver_failed"
  | "approval_tampered"
  | "plan_id_malformed"
  | "plan_id_unknown"
  | "plan_id_expired"
  | "plan_id_used"
  | "state_insecure"
  | "state_unavailable"
  | "audit_unavailable"
  | "not_a_terminal"
  // packs a person trusted with credentials (hcp run)
  | "pack_untrusted"
  // a served pack changed since the server loaded it (hcp serve, hcp exec)
  | "pack_changed"
  // pass-through (§6.6)
  | "subcommand_not_allowed"
  | "too_many_arguments"
  // credentials (§9)
  | "credentials_unavailable"
  | "credentials_insecure"
  | "credentials_invalid"
  // the process (§6.4)
  | "spawn_failed"
  | "cancelled"
  // HTTP requests of openapi verbs (§6.7)
  | "request_failed"
  | "invalid_response";

/** An error of the runtime: `code` is stable, `message` is for people. */
export class RuntimeError extends Error {
  override name = "RuntimeError";
  constructor(
    readonly code: RuntimeErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** The wire form transports send: `{code, message}`. */
  toJSON(): { code: RuntimeErrorCode; message: string } {
    return { code: this.code, message: this.message };
  }
}

/** An argv template that is malformed, or arguments that cannot be substituted into it safely. */
export class ArgvError extends RuntimeError {
  override name = "ArgvError";
}

/** A credential hub that cannot supply credentials, or a credential file that is unsafe or malformed. */
export class CredentialError extends RuntimeError {
  override name = "CredentialError";
}

/**
 * Shows a value in a message: JSON-quoted when it has at most 40 characters, else only its length.
 * Never a cut: a cut could leave part of a secret, which masking cannot recognise (§12).
 */
export function showValue(value: string): string {
  return value.length > 40 ? `(${value.length} characters, not shown)` : JSON.stringify(value);
}
