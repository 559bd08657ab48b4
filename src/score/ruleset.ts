// The rungrad-spec/1 ruleset (Go's spec/ruleset.yaml) as data: 22 rules in section order.

export type Severity = "required" | "recommended";

export interface Rule {
  readonly id: string;
  readonly section: string;
  readonly title: string;
  readonly severity: Severity | string;
  readonly probe: string;
}

export interface Ruleset {
  readonly version: string;
  readonly rules: readonly Rule[];
}

const SPEC_VERSION = "rungrad-spec/1";

const R = "required";
const O = "recommended";

/** [id, section, severity, probe, title] in ruleset order. */
const TABLE: ReadonlyArray<readonly [string, string, Severity, string, string]> = [
  ["output.json-parseable", "output-contract", R, "json-parseable", "A read command with --json emits valid JSON"],
  ["output.dual-form", "output-contract", O, "dual-form-present", "A read command produces both human and JSON forms"],
  ["exit.success-zero", "exit-codes", R, "success-exit-zero", "A successful read command exits 0"],
  ["exit.unknown-usage", "exit-codes", R, "unknown-subcommand-exit", "An unknown subcommand exits 1"],
  ["exit.missing-credential-auth", "exit-codes", R, "missing-credential-exit", "A command needing a credential, with none, exits 3"],
  ["exit.not-found", "exit-codes", O, "not-found-exit", "Asking for a missing resource exits 5"],
  ["exit.api-error", "exit-codes", O, "api-error-exit", "A command that hits an upstream or runtime error exits 2"],
  ["exit.forbidden", "exit-codes", O, "forbidden-exit", "A command refused for lacking permission exits 4"],
  ["exit.rate-limited", "exit-codes", O, "rate-limited-exit", "A command throttled by an upstream service exits 6"],
  ["dryrun.accepted", "dry-run", R, "dry-run-accepted", "A mutating command accepts --dry-run and exits 0"],
  ["dryrun.no-side-effects", "dry-run", R, "dry-run-no-side-effects", "--dry-run previews without reporting a completed mutation"],
  ["dryrun.destructive-preview", "dry-run", R, "destructive-dry-run-no-confirm", "A destructive command previews under --dry-run without confirmation"],
  [
    "dryrun.destructive-confirm-required",
    "dry-run",
    R,
    "destructive-requires-confirm",
    "A destructive command refuses to act without confirmation when non-interactive",
  ],
  ["determinism.repeatable", "determinism", R, "repeatable-output", "Two identical --json runs are byte-identical"],
  ["determinism.stable-sort", "determinism", O, "stable-sort", "A list command keeps a stable order across runs"],
  ["resolution.no-prompt", "name-resolution", R, "ambiguous-name-no-prompt", "An ambiguous name with --no-prompt fails without blocking"],
  ["help.examples", "self-describing-help", R, "help-has-examples", "A command's --help contains an examples section"],
  ["help.related", "self-describing-help", O, "help-has-related", "A command's --help points to related commands"],
  ["update.check-readonly", "self-update", R, "update-check-readonly", "update --check reports without changing the binary"],
  ["update.check-json", "self-update", O, "update-check-json", "update --check --json emits valid JSON"],
  ["auth.secret-not-printed", "auth-and-config", R, "secret-not-printed", "A credential value is never printed"],
  ["auth.config-flag", "auth-and-config", O, "config-flag-override", "A read command honors --config"],
];

/** The ruleset Go embeds in its spec package (DefaultRuleset). */
export const DEFAULT_RULESET: Ruleset = {
  version: SPEC_VERSION,
  rules: TABLE.map(([id, section, severity, probe, title]) => ({ id, section, title, severity, probe })),
};
