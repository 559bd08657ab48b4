// Executes pack verbs (§6, §7): resolve, validate, check policy and confirmation, run, redact.

import type { ValidateFunction } from "ajv";
import { parseJSONLiteral } from "../json/literal.js";
import { JsonNumber } from "../json/stable.js";
import { isObject } from "../pack/issues.js";
import { effectivePolicy, passThroughPolicy } from "../pack/policy.js";
import { acceptsEmptyObject, compileSchema } from "../pack/schema.js";
import type { EffectivePolicy, LoadedPack, Surface, SurfaceVerb } from "../pack/types.js";
import { argumentErrors } from "./arg-errors.js";
import { deriveArgsSchema, substitute, type Args } from "./argv.js";
import { loadCredentials, type Credentials } from "./credentials.js";
import type { Limiter } from "./limiter.js";
import { childEnv } from "./env.js";
import { RuntimeError } from "./errors.js";
import { operationArgsSchema, requestPlan, runRequestPlan } from "./openapi/verb.js";
import type { HttpResult } from "./openapi/result.js";
import { LiveOutput, type OutputListener } from "./live-output.js";
import { checkConfirmation, isRequestPlan, planId, subjectOf, type Plan, type RequestPlan } from "./plan.js";
import { runProcess, type ProcessResult } from "./process.js";
import { redact, secretSet, type SecretSet } from "./redact.js";
import { resolveProgram } from "./resolve.js";
import { argSecrets, maskError, maskResult, policyEnvSecrets } from "./secrets.js";

type Env = Readonly<Record<string, string | undefined>>;

export interface PlanOptions {
  /** Whether write verbs may run (`--allow-write`). */
  readonly allowWrite?: boolean;
  /** The runtime's environment (PATH, HOME, policy `env` names, HCP_CREDENTIALS); process.env by default. */
  readonly env?: Env;
}

export interface ExecuteOptions extends PlanOptions {
  /** Return the plan and its plan_id; run nothing. */
  readonly dryRun?: boolean;
  /** The plan_id confirming a confirm-gated verb. */
  readonly confirm?: string;
  /** Aborting kills the process group; the call then rejects with `cancelled`. */
  readonly signal?: AbortSignal;
  /** Written to the child's stdin (closed otherwise). */
  readonly stdin?: string;
  /** The child's working directory; the runtime's own by default. */
  readonly cwd?: string;
  /** Receives the child's output as it arrives, masked, line by line (see LiveOutput). */
  readonly onOutput?: OutputListener;
  /** Children at once: the child starts once a slot is free (queued, first come first served). */
  readonly slots?: Limiter;
}

/**
 * The §6.5 result: which plan ran, then the process result (wire order is the object's, built in
 * runPlan). `verb` is null for pass-through. Credential values are masked everywhere.
 */
export interface ExecResult extends Omit<ProcessResult, "cancelled"> {
  pack: string;
  verb: string | null;
  argv: string[];
  json?: unknown;
}

export interface DryRun {
  plan: Plan | RequestPlan;
  plan_id: string;
}

/** A pack that may run: loaded without errors. */
function usableSurface(pack: LoadedPack): Surface {
  if (!pack.ok || pack.surface === null) {
    const first = pack.issues.find((i) => i.severity === "error");
    throw new RuntimeError(
      "invalid_pack",
      `pack at ${pack.root} has validation errors and cannot run${first ? `: ${first.file}: ${first.path}: ${first.message}` : ""}`,
    );
  }
  return pack.surface;
}

function verbOf(surface: Surface, verbKey: string): SurfaceVerb {
  const verb = Object.hasOwn(surface.verbs, verbKey) ? surface.verbs[verbKey] : undefined;
  if (verb === undefined) throw new RuntimeError("unknown_verb", `pack ${JSON.stringify(surface.id)} has no verb ${JSON.stringify(verbKey)}`);
  return verb;
}

function notExecutable(surface: Surface): RuntimeError | undefined {
  if (surface.kind === "sense_only") {
    return new RuntimeError("not_executable", `pack ${JSON.stringify(surface.id)} is sense_only: it has nothing to execute, only stimulus triggers`);
  }
  return undefined;
}

/** Refuses what policy forbids: deny always, write without allowWrite. */
function checkPolicy(policy: EffectivePolicy, what: string, opts: PlanOptions): void {
  if (policy.policy === "deny") throw new RuntimeError("denied", `${what} is denied by policy`);
  if (policy.policy === "write" && !opts.allowWrite) {
    throw new RuntimeError("write_not_allowed", `${what} writes; the runtime must be started with writes allowed (--allow-write)`);
  }
}

/** The program and argv template of a verb (§6.1). */
function commandOf(surface: Surface, verbKey: string, verb: SurfaceVerb): { bin: string; template: string[]; allowVerb: boolean } {
  if (surface.kind === "wrap" && surface.wrap !== undefined) {
    if (verb.cli !== undefined) return { bin: surface.wrap.bin, template: verb.cli.slice(1), allowVerb: false };
    return { bin: surface.wrap.bin, template: surface.wrap.argv_template ?? ["{{verb}}"], allowVerb: true };
  }
  const program = verb.cli?.[0];
  if (program === undefined) {
    throw new RuntimeError("not_executable", `verb ${JSON.stringify(verbKey)} of pack ${JSON.stringify(surface.id)} has no cli to run`);
  }
  if (program.includes("{{") || program.includes("}}")) {
    throw new RuntimeError("not_executable", `verb ${JSON.stringify(verbKey)}: the program cli[0] must be literal, not a placeholder`);
  }
  return { bin: program, template: verb.cli!.slice(1), allowVerb: false };
}

/** The JSON Schema a verb's arguments are validated against: its `args`, else the one derived from its template (§6.3). */
export function argsSchemaOf(pack: LoadedPack, verbKey: string): Record<string, unknown> {
  const surface = usableSurface(pack);
  const verb = verbOf(surface, verbKey);
  if (verb.args !== undefined) return verb.args;
  const unrunnable = notExecutable(surface);
  if (unrunnable) return { type: "object" };
  if (surface.kind === "openapi") return operationArgsSchema(pack, verbKey);
  const { template, allowVerb } = commandOf(surface, verbKey, verb);
  return deriveArgsSchema(template, { allowVerb });
}

/** The argument names a schema requires: a placeholder outside them is optional (§6.2). */
function requiredOf(schema: Record<string, unknown>): ReadonlySet<string> {
  const required = schema["required"];
  return new Set(Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : []);
}

const validators = new WeakMap<SurfaceVerb, ValidateFunction>();

function validateArgs(pack: LoadedPack, verbKey: string, verb: SurfaceVerb, args: unknown): Args {
  if (!isObject(args)) {
    throw new RuntimeError("invalid_args", `arguments of verb ${JSON.stringify(verbKey)} must be a JSON object`);
  }
  let validate = validators.get(verb);
  if (validate === undefined) {
    const schema = argsSchemaOf(pack, verbKey);
    // A call without arguments to a verb whose schema plainly accepts none needs no compiled
    // validator: a one-shot run then never loads Ajv (~200 ms to load and compile).
    if (Object.keys(args).length === 0 && acceptsEmptyObject(schema)) return args;
    const compiled = compileSchema(schema);
    if (!compiled.ok) throw new RuntimeError("invalid_args", `verb ${JSON.stringify(verbKey)}: its args schema does not compile: ${compiled.error}`);
    validate = compiled.validate;
    validators.set(verb, validate);
  }
  if (!validate(args)) {
    throw new RuntimeError("invalid_args", `invalid arguments for verb ${JSON.stringify(verbKey)}: ${argumentErrors(validate.errors ?? []).join("; ")}`);
  }
  return args;
}

function planPolicy(p: EffectivePolicy): Plan["policy"] {
  return { policy: p.policy, confirm: p.confirm, timeout_ms: p.timeout_ms, max_output_bytes: p.max_output_bytes };
}

/**
 * The pack's credentials, read once per call: a failure is kept, not thrown, because planning
 * and dry runs do not need them (the run itself then reports it).
 */
type CredentialLoad = { ok: true; credentials: Credentials } | { ok: false; error: unknown };

function credentialsOf(pack: LoadedPack, opts: PlanOptions): CredentialLoad {
  try {
    return { ok: true, credentials: loadCredentials(pack.surface?.binding, pack.surface?.id ?? "", { env: opts.env ?? process.env, names: pack.policy?.credentials }) };
  } catch (error) {
    return { ok: false, error };
  }
}

/**
 * Every secret of a call (§12): the pack's credential values (a hub that cannot be read has none to
 * leak), its secret-looking policy `env` values and the arguments its schema marks secret.
 */
function secretsOf(pack: LoadedPack, load: CredentialLoad, opts: PlanOptions, args: () => string[]): SecretSet {
  const credentials = load.ok ? load.credentials.secrets : [];
  return secretSet([...credentials, ...policyEnvSecrets(pack, opts.env ?? process.env), ...args()]);
}

/** The arguments of a verb its args schema marks secret; none when the verb cannot be found. */
function verbArgSecrets(pack: LoadedPack, verbKey: string, args: unknown): () => string[] {
  return () => {
    try {
      return argSecrets(argsSchemaOf(pack, verbKey), args);
    } catch {
      return []; // no such verb: the planning error says so
    }
  };
}

/** Runs a planning step; whatever it throws leaves with its message masked. */
function masking<T>(secrets: SecretSet, step: () => T): T {
  try {
    return step();
  } catch (err) {
    throw maskError(err, secrets);
  }
}

/** The plan as shown (secrets masked) with the id of the exact plan. */
function shown(plan: Plan | RequestPlan, secrets: SecretSet): DryRun {
  return { plan: redact(plan, secrets) as Plan | RequestPlan, plan_id: planId(plan) };
}

/** The exact plan of a verb: everything short of running is checked (§7). Throws RuntimeError. */
function exactPlan(pack: LoadedPack, verbKey: string, args: unknown, opts: PlanOptions): Plan | RequestPlan {
  const surface = usableSurface(pack);
  const unrunnable = notExecutable(surface);
  if (unrunnable) throw unrunnable;
  const verb = verbOf(surface, verbKey);
  const policy = effectivePolicy(pack, verbKey);
  checkPolicy(policy, subjectOf({ pack: surface.id, verb: verbKey }), opts);
  const valid = validateArgs(pack, verbKey, verb, args);
  if (surface.kind === "openapi") return requestPlan(pack, verbKey, valid, planPolicy(policy));
  const { bin, template, allowVerb } = commandOf(surface, verbKey, verb);
  const tail = substitute(template, valid, { allowVerb, verb: verbKey, required: requiredOf(argsSchemaOf(pack, verbKey)) });
  const program = resolveProgram(bin, pack.root, (opts.env ?? process.env)["PATH"]);
  return { pack: surface.id, verb: verbKey, argv: [program, ...tail], policy: planPolicy(policy) };
}

/** The plan `exact` makes, as shown (secrets masked), with the plan_id that confirms exactly it. */
function planned(pack: LoadedPack, opts: PlanOptions, exact: () => Plan | RequestPlan, args: () => string[]): DryRun {
  const secrets = secretsOf(pack, credentialsOf(pack, opts), opts, args);
  return shown(masking(secrets, exact), secrets);
}

/**
 * Makes the plan, then returns it on a dry run, or runs it (a confirm-gated plan only with its plan_id).
 * The one way out of the runtime for a call: its plan, its result and its errors are all masked here
 * (an openapi result is masked where it is made, with the credentials' wire forms too).
 */
async function planOrRun(pack: LoadedPack, opts: ExecuteOptions, exact: () => Plan | RequestPlan, args: () => string[]): Promise<ExecResult | HttpResult | DryRun> {
  const load = credentialsOf(pack, opts);
  const secrets = secretsOf(pack, load, opts, args);
  try {
    const plan = exact();
    if (opts.dryRun) return shown(plan, secrets);
    if (plan.policy.confirm) checkConfirmation(plan, opts.confirm);
    if (isRequestPlan(plan)) {
      if (!load.ok) throw load.error;
      return await runRequestPlan(pack, plan, load.credentials, secrets, opts);
    }
    return maskResult(await runPlan(pack, plan, opts, load, secrets), secrets);
  } catch (err) {
    throw maskError(err, secrets);
  }
}

/** The verb's plan (secrets masked) and the plan_id that confirms exactly it. Throws RuntimeError. */
export function planVerb(pack: LoadedPack, verbKey: string, args: unknown, opts: PlanOptions = {}): DryRun {
  return planned(pack, opts, () => exactPlan(pack, verbKey, args, opts), verbArgSecrets(pack, verbKey, args));
}

/** Runs a verb, or returns its plan on a dry run. Confirm-gated verbs need the plan's id. */
export function executeVerb(pack: LoadedPack, verbKey: string, args: unknown, opts: ExecuteOptions = {}): Promise<ExecResult | HttpResult | DryRun> {
  return planOrRun(pack, opts, () => exactPlan(pack, verbKey, args, opts), verbArgSecrets(pack, verbKey, args));
}

/** Plans a pass-through invocation (§6.6): argv is the subcommand and its arguments, after the bin. */
export function planPassThrough(pack: LoadedPack, argv: readonly string[], opts: PlanOptions = {}): DryRun {
  return planned(pack, opts, () => exactPassThroughPlan(pack, argv, opts), () => []);
}

function exactPassThroughPlan(pack: LoadedPack, argv: readonly string[], opts: PlanOptions): Plan {
  const surface = usableSurface(pack);
  const name = JSON.stringify(surface.id);
  if (surface.kind !== "wrap" || surface.wrap === undefined || surface.pass_through === undefined) {
    throw new RuntimeError("not_executable", `pack ${name} declares no pass_through`);
  }
  const policy = passThroughPolicy(pack);
  checkPolicy(policy, subjectOf({ pack: surface.id, verb: null }), opts);
  const { allowedSubcommands, maxArgv } = surface.pass_through;
  const sub = argv[0];
  if (sub === undefined || !allowedSubcommands.includes(sub)) {
    throw new RuntimeError(
      "subcommand_not_allowed",
      `${sub === undefined ? "pass-through needs a subcommand" : `subcommand ${JSON.stringify(sub)} is not allowed`}; pack ${name} allows ${allowedSubcommands.map((s) => JSON.stringify(s)).join(", ")}`,
    );
  }
  if (argv.length > maxArgv) {
    throw new RuntimeError("too_many_arguments", `pass-through of pack ${name} takes at most ${maxArgv} arguments after the program, got ${argv.length}`);
  }
  if (argv.some((a) => a.includes("\0"))) throw new RuntimeError("nul_in_argument", "a pass-through argument must not contain NUL");
  const program = resolveProgram(surface.wrap.bin, pack.root, (opts.env ?? process.env)["PATH"]);
  return { pack: surface.id, verb: null, argv: [program, ...argv], policy: planPolicy(policy) };
}

/** Runs a pass-through invocation, or returns its plan on a dry run. */
export function runPassThrough(pack: LoadedPack, argv: readonly string[], opts: ExecuteOptions = {}): Promise<ExecResult | DryRun> {
  return planOrRun(pack, opts, () => exactPassThroughPlan(pack, argv, opts), () => []) as Promise<ExecResult | DryRun>;
}

/** True when a result of executeVerb or runPassThrough is a dry run's plan. */
export function isDryRun(r: ExecResult | HttpResult | DryRun): r is DryRun {
  return "plan_id" in r;
}

/** Runs a checked plan with the child environment of §6.4; the result is raw (planOrRun masks it), live output masked with `secrets`. */
async function runPlan(pack: LoadedPack, plan: Plan, opts: ExecuteOptions, load: CredentialLoad, secrets: SecretSet): Promise<ExecResult> {
  const surface = usableSurface(pack);
  const parent = opts.env ?? process.env;
  // The loader has already given a control-plane binding its default mode (mothership).
  const mode = surface.binding?.mode;
  if (!load.ok) throw load.error;
  const credentials = load.credentials;
  const env = childEnv({
    parent,
    policyEnv: pack.policy?.env,
    agentEnv: surface.wrap?.agent_env,
    packId: surface.id,
    verb: plan.verb ?? undefined,
    bindingMode: mode,
    bindingFamily: surface.binding?.family,
    credentials: credentials.env,
  });
  const [file, ...args] = plan.argv as [string, ...string[]];
  const live = opts.onOutput === undefined ? undefined : new LiveOutput(secrets, opts.onOutput);
  const release = await opts.slots?.acquire(opts.signal);
  const r = await runProcess({
    file,
    args,
    env,
    cwd: opts.cwd,
    stdin: opts.stdin,
    timeoutMs: plan.policy.timeout_ms,
    maxOutputBytes: plan.policy.max_output_bytes,
    signal: opts.signal,
    onOutput: live === undefined ? undefined : (stream, kept, total) => live.push(stream, kept, total),
  }).finally(release);
  live?.end({ stdout: r.stdout_truncated, stderr: r.stderr_truncated });
  if (r.cancelled) throw new RuntimeError("cancelled", `${plan.verb === null ? "pass-through" : `verb ${JSON.stringify(plan.verb)}`} was cancelled; its process group was killed`);
  const result: ExecResult = {
    pack: plan.pack,
    verb: plan.verb,
    argv: plan.argv,
    exit_code: r.exit_code,
    signal: r.signal,
    timed_out: r.timed_out,
    duration_ms: r.duration_ms,
    stdout: r.stdout,
    stderr: r.stderr,
    stdout_bytes: r.stdout_bytes,
    stderr_bytes: r.stderr_bytes,
    stdout_truncated: r.stdout_truncated,
    stderr_truncated: r.stderr_truncated,
  };
  // The parsed value is masked with the rest: a secret written with JSON escapes is masked decoded too.
  const json = r.stdout_truncated ? undefined : parseJson(r.stdout);
  if (json !== undefined) result.json = json.value;
  return result;
}

/**
 * The value of a text that is exactly one JSON value (surrounding whitespace allowed). Numbers keep
 * their literal (JsonNumber): 9007199254740993 is not rounded (§6.5).
 */
function parseJson(text: string): { value: unknown } | undefined {
  if (text.trim() === "") return undefined;
  try {
    return { value: plain(parseJSONLiteral(text)) };
  } catch {
    return undefined; // not JSON (or nested past the call stack)
  }
}

/**
 * The reader's value as ordinary JSON values: plain objects in the child's key order ("__proto__" stays a key)
 * and numbers, except a number a double cannot hold exactly, which stays a JsonNumber (its literal).
 */
function plain(v: unknown): unknown {
  if (v instanceof JsonNumber) return String(Number(v.literal)) === v.literal ? Number(v.literal) : v;
  if (Array.isArray(v)) return v.map(plain);
  if (typeof v !== "object" || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, item] of Object.entries(v)) Object.defineProperty(out, k, { value: plain(item), enumerable: true, writable: true, configurable: true });
  return out;
}
