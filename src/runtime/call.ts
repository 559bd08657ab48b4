// A call of the runtime, types only: the options it takes (PlanOptions, ExecuteOptions) and what it answers (ExecResult, DryRun).

import type { Gate } from "./approval/gate.js";
import type { AuditTransport } from "./audit.js";
import type { Limiter } from "./limiter.js";
import type { OutputListener } from "./process/live-output.js";
import type { AnyPlan } from "./plan.js";
import type { ProcessResult } from "./process/process.js";
import type { TrustAsker } from "./trust/trust.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface PlanOptions {
  /** Whether write verbs may run (`--allow-write`); a dry run needs no such permission. */
  readonly allowWrite?: boolean;
  /** The runtime's environment (PATH, HOME, policy `env` names, HCP_CREDENTIALS, XDG_STATE_HOME, HCP_AUDIT); process.env by default. */
  readonly env?: Env;
  /** Written to the child's stdin (closed otherwise). Part of the plan. */
  readonly stdin?: string;
  /** The child's working directory; the runtime's own by default. Part of the plan. */
  readonly cwd?: string;
  /** Approvals, their state and the audit log; by default from `env` (no way to ask a person). */
  readonly gate?: Gate;
  /** The transport asking, for the audit log; `cli` by default. */
  readonly transport?: AuditTransport;
  /** Where the request came from, as the transport knows it (over HTTP, the client's `IP:port`), for the audit log. */
  readonly clientAddress?: string;
  /** The transport's own secrets (the HTTP server's bearer token): masked in what the call gives back, as its own are. */
  readonly serverSecrets?: readonly string[];
  /**
   * The process makes this one call (a one-shot `hcp run`): arguments a plain schema accepts are judged
   * without compiling a validator (src/pack/interpreted.ts); Ajv compiles only to word a refusal. Its watchdog ends
   * with its run (watchdog.ts releaseRun).
   */
  readonly oneCall?: boolean;
  /**
   * Only a pack a person trusted (trust.ts): set by `hcp run`, whose caller may have written the pack and whose
   * program runs as the person. A pack not trusted as loaded, whatever its binding, is refused (`pack_untrusted`)
   * before anything is read or run, dry runs included; with `ask`, a person is first asked to trust it. `named`: the
   * paths the caller gave for the pack folder (through a link), which its files may not name (trust.ts bindingOf).
   */
  readonly trust?: { readonly ask?: TrustAsker; readonly named?: readonly string[] };
}

export interface ExecuteOptions extends PlanOptions {
  /** Return the plan and its plan_id; run nothing. */
  readonly dryRun?: boolean;
  /** The plan_id confirming a confirm-gated verb. */
  readonly confirm?: string;
  /** Aborting kills the process group; the call then rejects with `cancelled`. */
  readonly signal?: AbortSignal;
  /** Receives the child's output as it arrives, masked, line by line (see LiveOutput). */
  readonly onOutput?: OutputListener;
  /** Children or HTTP requests at once: the child starts, or the request is sent, once a slot is free (queued, first come first served). */
  readonly slots?: Limiter;
  /** Told what the person should know of a run that the §6.5 result has no field for (OUTPUT_HELD). */
  readonly onWarning?: (text: string) => void;
}

/** The warning of a run whose output a process hcp could neither find nor kill still held at its end. */
export const OUTPUT_HELD =
  "a process that left the run still held its output when hcp stopped waiting for it, and could be neither found nor killed: it may still be running (SECURITY.md, Limits)";

/**
 * The §6.5 result: which plan ran, then the process result (wire order is the object's, built in
 * runPlan). `verb` is null for pass-through. Credential values are masked everywhere.
 */
export interface ExecResult extends Omit<ProcessResult, "cancelled" | "output_held"> {
  pack: string;
  verb: string | null;
  argv: string[];
  json?: unknown;
}

/** A dry run: the plan as shown (secrets masked) and the id that confirms exactly it, until `expires_at`. */
export interface DryRun {
  plan: AnyPlan;
  plan_id: string;
  expires_at: string;
}
