// Executes pack verbs (§6, §7): resolve, validate, plan, check policy and approval, audit, run, redact.

import { resolve } from "node:path";
import type { ValidateFunction } from "ajv";
import { isObject } from "../pack/issues.js";
import { MAX_JSON_DEPTH, tooDeep } from "../pack/load.js";
import { effectivePolicy, passThroughPolicy } from "../pack/policy.js";
import { acceptsEmptyObject, compileSchema } from "../pack/schema.js";
import { acceptsWithoutCompiling } from "../pack/interpreted.js";
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
import { authorize, defaultGate, issuePlan, type Gate } from "./approval/gate.js";
import { lazySecretDigests } from "./approval/secret-digest.js";
import { ApprovalError } from "./approval/store.js";
import { type AuditDecision, type AuditEntry, type AuditTransport } from "./audit.js";
import { isRequestPlan, packStamp, sha256Hex, stamped, subjectOf, type AnyPlan, type Plan, type RequestPlan } from "./plan.js";
import { runProcess, type ProcessResult } from "./process.js";
import { redact, redactText, secretSet, type SecretSet } from "./redact.js";
import { resolveProgram } from "./resolve.js";
import { stdoutJson } from "./stdout-json.js";
import { isSecretName } from "./secret-name.js";
import { argSecrets, maskError, maskResult, policyEnvSecrets } from "./secrets.js";

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
  /**
   * The process makes this one call (a one-shot `hcp run`): arguments a plain schema accepts are judged
   * without compiling a validator (src/pack/interpreted.ts); Ajv compiles only to word a refusal.
   */
  readonly oneCall?: boolean;
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

/** A dry run: the plan as shown (secrets masked) and the id that confirms exactly it, until `expires_at`. */
export interface DryRun {
  plan: AnyPlan;
  plan_id: string;
  expires_at: string;
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

function verbOf(pack: LoadedPack, surface: Surface, verbKey: string): SurfaceVerb {
  const verb = Object.hasOwn(surface.verbs, verbKey) ? surface.verbs[verbKey] : undefined;
  if (verb === undefined) {
    // The verbs the caller may use, so that a typo is seen at once; denied verbs are never named (§4).
    const usable = Object.keys(surface.verbs).filter((key) => effectivePolicy(pack, key).policy !== "deny");
    throw new RuntimeError("unknown_verb", `pack ${JSON.stringify(surface.id)} has no verb ${JSON.stringify(verbKey)} (verbs: ${usable.join(", ") || "none"})`);
  }
  return verb;
}

function notExecutable(surface: Surface): RuntimeError | undefined {
  if (surface.kind === "sense_only") {
    return new RuntimeError("not_executable", `pack ${JSON.stringify(surface.id)} is sense_only: it has nothing to execute, only stimulus triggers`);
  }
  return undefined;
}

/** Refuses what policy never runs, not even as a dry run. */
function checkDenied(policy: EffectivePolicy, what: string): void {
  if (policy.policy === "deny") throw new RuntimeError("denied", `${what} is denied by policy`);
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

/** Template-derived args schemas, made once per verb of a loaded pack (a call asks for it twice). */
const derivedSchemas = new WeakMap<SurfaceVerb, Record<string, unknown>>();

/** The JSON Schema a verb's arguments are validated against: its `args`, else the one derived from its template (§6.3). */
export function argsSchemaOf(pack: LoadedPack, verbKey: string): Record<string, unknown> {
  const surface = usableSurface(pack);
  const verb = verbOf(pack, surface, verbKey);
  if (verb.args !== undefined) return verb.args;
  const unrunnable = notExecutable(surface);
  if (unrunnable) return { type: "object" };
  if (surface.kind === "openapi") return operationArgsSchema(pack, verbKey);
  let derived = derivedSchemas.get(verb);
  if (derived === undefined) {
    const { template, allowVerb } = commandOf(surface, verbKey, verb);
    derived = deriveArgsSchema(template, { allowVerb });
    derivedSchemas.set(verb, derived);
  }
  return derived;
}

/** The argument names a schema requires: a placeholder outside them is optional (§6.2). */
function requiredOf(schema: Record<string, unknown>): ReadonlySet<string> {
  const required = schema["required"];
  return new Set(Array.isArray(required) ? required.filter((r): r is string => typeof r === "string") : []);
}

const validators = new WeakMap<SurfaceVerb, ValidateFunction>();

/**
 * Whether the arguments pass. Ajv's own comparison (enum, const, uniqueItems) throws on an object with an own
 * `valueOf` that is not a function: such arguments cannot be judged, so they are refused as invalid, naming why.
 */
function judge(validate: ValidateFunction, args: unknown, verbKey: string): boolean {
  try {
    return validate(args);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    throw new RuntimeError("invalid_args", `invalid arguments for verb ${JSON.stringify(verbKey)}: its schema cannot judge them (${why})`);
  }
}

function validateArgs(pack: LoadedPack, verbKey: string, verb: SurfaceVerb, args: unknown, oneCall: boolean): Args {
  if (!isObject(args)) {
    throw new RuntimeError("invalid_args", `arguments of verb ${JSON.stringify(verbKey)} must be a JSON object`);
  }
  // Deeper, copying them into a plan or a request body would overflow the stack (an internal error, not the caller's).
  const deep = tooDeep(args, MAX_JSON_DEPTH);
  if (deep !== undefined) {
    throw new RuntimeError("invalid_args", `invalid arguments for verb ${JSON.stringify(verbKey)}: nested more than ${MAX_JSON_DEPTH} levels deep at ${deep}`);
  }
  let validate = validators.get(verb);
  if (validate === undefined) {
    const schema = argsSchemaOf(pack, verbKey);
    // A call without arguments to a verb whose schema plainly accepts none needs no compiled
    // validator: a one-shot run then never loads Ajv (~200 ms to load and compile).
    if (Object.keys(args).length === 0 && acceptsEmptyObject(schema)) return args;
    // Compiling costs a one-shot run more than interpreting the schema once (docs/performance.md).
    if (oneCall && acceptsWithoutCompiling(schema, args)) return args;
    const compiled = compileSchema(schema);
    if (!compiled.ok) throw new RuntimeError("invalid_args", `verb ${JSON.stringify(verbKey)}: its args schema does not compile: ${compiled.error}`);
    validate = compiled.validate;
    validators.set(verb, validate);
  }
  if (!judge(validate, args, verbKey)) {
    throw new RuntimeError("invalid_args", `invalid arguments for verb ${JSON.stringify(verbKey)}: ${argumentErrors(validate.errors ?? []).join("; ")}`);
  }
  return args;
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
    let schema: unknown;
    try {
      schema = argsSchemaOf(pack, verbKey);
    } catch {
      return []; // no such verb: the planning error says so
    }
    return argSecrets(schema, args);
  };
}

/** What a verb or pass-through runs, before its environment and pack are added to make the plan. */
type Command = { policy: EffectivePolicy } & ({ pack: string; verb: string | null; argv: string[] } | { request: RequestPlan });

/** The command of a verb: everything short of running is checked but the write permission (§7). Throws RuntimeError. */
function verbCommand(pack: LoadedPack, verbKey: string, args: unknown, opts: PlanOptions): Command {
  const surface = usableSurface(pack);
  const unrunnable = notExecutable(surface);
  if (unrunnable) throw unrunnable;
  const verb = verbOf(pack, surface, verbKey);
  const policy = effectivePolicy(pack, verbKey);
  checkDenied(policy, subjectOf({ pack: surface.id, verb: verbKey }));
  const valid = validateArgs(pack, verbKey, verb, args, opts.oneCall === true);
  if (surface.kind === "openapi") return { policy, request: requestPlan(pack, verbKey, valid, planPolicy(policy)) };
  const { bin, template, allowVerb } = commandOf(surface, verbKey, verb);
  const tail = substitute(template, valid, { allowVerb, verb: verbKey, required: requiredOf(argsSchemaOf(pack, verbKey)) });
  const program = resolveProgram(bin, pack.root, (opts.env ?? process.env)["PATH"]);
  return { pack: surface.id, verb: verbKey, argv: [program, ...tail], policy };
}

function planPolicy(p: EffectivePolicy): Plan["policy"] {
  return { policy: p.policy, confirm: p.confirm, timeout_ms: p.timeout_ms, max_output_bytes: p.max_output_bytes };
}

const hashed = (value: string) => `sha256:${sha256Hex(value)}`;

/** A plan made: the exact plan, the one shown (secrets masked; made when first read), and the child's whole environment. */
interface Prepared {
  plan: AnyPlan;
  readonly shown: AnyPlan;
  childEnv: Record<string, string>;
  ttlSeconds: number;
  secrets: SecretSet;
  load: CredentialLoad;
}

/**
 * The complete plan of a command (§7): its stdin digest, the variables the child gets from policy
 * `env`, `agent_env` and the binding (secrets by their keyed digest), its working directory, and the pack
 * files it was made from.
 */
function prepare(pack: LoadedPack, cmd: Command, opts: PlanOptions, load: CredentialLoad, secrets: SecretSet, stateDir: string): Prepared {
  const surface = usableSurface(pack);
  // Secrets are named by a digest keyed with the user's key (never their plain SHA-256: the agent sees plans).
  const digestOf = lazySecretDigests(stateDir);
  const stamp = packStamp(pack);
  const ttlSeconds = cmd.policy.approval_ttl_s;
  if ("request" in cmd) {
    // The credentials the request will carry, by their keyed digest: another credential is another plan.
    const given = load.ok ? { ...load.credentials.env, ...load.credentials.openapi } : {};
    const credentials: Record<string, string> = {};
    for (const [name, value] of Object.entries(given)) digestOf(credentials, name, value);
    // stamped() keeps the stamp's getters: a read that shows no plan never hashes the pack files.
    const plan: RequestPlan = stamped({ ...cmd.request }, stamp);
    if (Object.keys(credentials).length > 0) plan.credentials = credentials;
    return shownWhenRead({ plan, childEnv: {}, ttlSeconds, secrets, load });
  }
  const credentials = load.ok ? load.credentials.env : {};
  const env = childEnv({
    parent: opts.env ?? process.env,
    policyEnv: pack.policy?.env,
    agentEnv: surface.wrap?.agent_env,
    packId: surface.id,
    verb: cmd.verb ?? undefined,
    // The loader has already given a control-plane binding its default mode (mothership).
    bindingMode: surface.binding?.mode,
    bindingFamily: surface.binding?.family,
    credentials,
  });
  const planned = new Set([...(pack.policy?.env ?? []), ...Object.keys(surface.wrap?.agent_env ?? {}), ...Object.keys(credentials)]);
  const planEnv: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!planned.has(name) && !name.startsWith("HCP_")) continue;
    const secret = Object.hasOwn(credentials, name) || ((pack.policy?.env ?? []).includes(name) && isSecretName(name));
    if (secret) digestOf(planEnv, name, value);
    else planEnv[name] = value;
  }
  const plan: Plan = stamped(
    {
      pack: cmd.pack,
      verb: cmd.verb,
      argv: cmd.argv,
      policy: planPolicy(cmd.policy),
      stdin: opts.stdin === undefined ? null : hashed(opts.stdin),
      env: planEnv,
      cwd: pack.policy?.cwd === undefined ? resolve(opts.cwd ?? process.cwd()) : resolve(pack.root, pack.policy.cwd),
    },
    stamp,
  );
  return shownWhenRead({ plan, childEnv: env, ttlSeconds, secrets, load });
}

/** The prepared plan with `shown` made when first read: a plain read shows, stores and logs no plan. */
function shownWhenRead(prepared: Omit<Prepared, "shown">): Prepared {
  let shown: AnyPlan | undefined;
  return {
    ...prepared,
    get shown() {
      return (shown ??= redact(prepared.plan, prepared.secrets) as AnyPlan);
    },
  };
}

/** The gate of the options, else the runtime environment's (nobody to ask). */
function gateOf(opts: PlanOptions): Gate {
  return opts.gate ?? defaultGate(opts.env ?? process.env);
}

const STDIN_PREVIEW = 2000;

/** Writes one audit line for a plan (§7.1 field order); entries about plain reads are not written. */
async function audit(gate: Gate, opts: PlanOptions, prepared: Prepared, fields: Pick<AuditEntry, "decision" | "plan_id" | "by"> & Partial<AuditEntry>): Promise<void> {
  const { plan } = prepared;
  if (gate.audit === null || (plan.policy.policy !== "write" && plan.policy.confirm === false)) return;
  // Only the argv (or method and URL) is logged: masked here, so no plan (nor secret digest) is made for it.
  const argv = redact(isRequestPlan(plan) ? [plan.method, plan.url] : plan.argv, prepared.secrets) as string[];
  const entry: AuditEntry = {
    time: new Date().toISOString(),
    transport: opts.transport ?? "cli",
    ...(opts.clientAddress === undefined ? {} : { client_address: opts.clientAddress }),
    pack: plan.pack,
    verb: plan.verb,
    plan_id: fields.plan_id,
    argv,
    decision: fields.decision,
    by: fields.by,
    exit_code: fields.exit_code ?? null,
    duration_ms: fields.duration_ms ?? null,
  };
  if (fields.reason !== undefined) entry.reason = fields.reason;
  await gate.audit.append(entry);
}

/** Logs a refusal without hiding it: a log that cannot be written then is named on stderr. */
async function auditRefusal(gate: Gate, opts: PlanOptions, prepared: Prepared, err: unknown): Promise<void> {
  const code = err instanceof RuntimeError ? err.code : "internal";
  const decision: AuditDecision = code === "confirmation_declined" ? "declined" : "refused";
  const plan_id = err instanceof ApprovalError ? err.plan_id : null;
  const by = err instanceof ApprovalError ? err.by : null;
  try {
    await audit(gate, opts, prepared, { decision, plan_id, by, reason: code });
  } catch (auditErr) {
    process.stderr.write(`Warning: ${(auditErr as Error).message}\n`);
  }
}

/**
 * Makes the plan, then returns it on a dry run, or runs it once policy, approval and the audit log allow.
 * The one way out of the runtime for a call: its plan, its result and its errors are all masked here
 * (an openapi result is masked where it is made, with the credentials' wire forms too).
 */
async function planOrRun(pack: LoadedPack, opts: ExecuteOptions, command: () => Command, args: () => string[]): Promise<ExecResult | HttpResult | DryRun> {
  const load = credentialsOf(pack, opts);
  const secrets = secretsOf(pack, load, opts, args);
  try {
    return await decide(pack, opts, load, secrets, command);
  } catch (err) {
    throw maskError(err, secrets);
  }
}

/** planOrRun's decisions, in order: plan, dry run or policy, approval, audit, run, audit. */
async function decide(pack: LoadedPack, opts: ExecuteOptions, load: CredentialLoad, secrets: SecretSet, command: () => Command): Promise<ExecResult | HttpResult | DryRun> {
  const gate = gateOf(opts);
  const prepared = prepare(pack, command(), opts, load, secrets, gate.stateDir);
  const { plan } = prepared;
  // What a person or the plan store is shown: made only for a dry run or a plan to approve.
  const input = () => ({
    plan,
    shown: prepared.shown,
    ttlSeconds: prepared.ttlSeconds,
    stdinPreview: opts.stdin === undefined ? undefined : redactText(opts.stdin.slice(0, STDIN_PREVIEW), secrets),
    stdinMoreBytes: opts.stdin === undefined ? undefined : Buffer.byteLength(opts.stdin.slice(STDIN_PREVIEW), "utf8"),
  });
  if (opts.dryRun) {
    const issued = await issuePlan(gate, input());
    await audit(gate, opts, prepared, { decision: "dry_run", plan_id: issued.plan_id, by: null });
    return { plan: prepared.shown, ...issued };
  }
  let approval: { plan_id: string | null; by: string | null };
  try {
    if (plan.policy.policy === "write" && !opts.allowWrite) {
      throw new RuntimeError("write_not_allowed", `${subjectOf(plan)} writes; the runtime must be started with writes allowed (--allow-write)`);
    }
    approval = plan.policy.confirm === false ? { plan_id: null, by: null } : await authorize(gate, { ...input(), given: opts.confirm, signal: opts.signal });
  } catch (err) {
    await auditRefusal(gate, opts, prepared, err);
    throw err;
  }
  // Flushed to disk before the child starts: no write runs unrecorded (fail closed).
  await audit(gate, opts, prepared, { decision: "approved", ...approval });
  let result: ExecResult | HttpResult;
  try {
    if (isRequestPlan(plan)) {
      if (!prepared.load.ok) throw prepared.load.error;
      result = await runRequestPlan(pack, plan, prepared.load.credentials, secrets, opts);
    } else {
      result = maskResult(await runPlan(plan, prepared, opts), secrets);
    }
  } catch (err) {
    await auditRefusal(gate, opts, prepared, err).catch(() => {});
    throw err;
  }
  const ok = "ok" in result ? result.ok : result.exit_code === 0 && !result.timed_out && result.signal === null;
  const exit_code = "exit_code" in result ? result.exit_code : null;
  try {
    await audit(gate, opts, prepared, { decision: ok ? "ran" : "failed", ...approval, exit_code, duration_ms: result.duration_ms });
  } catch (err) {
    // The child has run: its result is still the answer; the log's failure is said on stderr.
    process.stderr.write(`Warning: ${(err as Error).message}\n`);
  }
  return result;
}

/** A dry run of the verb: its plan (credential values masked) and the plan_id that confirms exactly it. Throws RuntimeError. */
export async function planVerb(pack: LoadedPack, verbKey: string, args: unknown, opts: PlanOptions = {}): Promise<DryRun> {
  return (await executeVerb(pack, verbKey, args, { ...opts, dryRun: true })) as DryRun;
}

/** Runs a verb, or returns its plan on a dry run. Confirm-gated verbs need an approval or the plan's id (§7). */
export function executeVerb(pack: LoadedPack, verbKey: string, args: unknown, opts: ExecuteOptions = {}): Promise<ExecResult | HttpResult | DryRun> {
  return planOrRun(pack, opts, () => verbCommand(pack, verbKey, args, opts), verbArgSecrets(pack, verbKey, args));
}

/** A dry run of a pass-through invocation (§6.6): argv is the subcommand and its arguments, after the bin. */
export async function planPassThrough(pack: LoadedPack, argv: readonly string[], opts: PlanOptions = {}): Promise<DryRun> {
  return (await runPassThrough(pack, argv, { ...opts, dryRun: true })) as DryRun;
}

function passThroughCommand(pack: LoadedPack, argv: readonly string[], opts: PlanOptions): Command {
  const surface = usableSurface(pack);
  const name = JSON.stringify(surface.id);
  if (surface.kind !== "wrap" || surface.wrap === undefined || surface.pass_through === undefined) {
    throw new RuntimeError("not_executable", `pack ${name} declares no pass_through`);
  }
  const policy = passThroughPolicy(pack);
  checkDenied(policy, subjectOf({ pack: surface.id, verb: null }));
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
  return { pack: surface.id, verb: null, argv: [program, ...argv], policy };
}

/** Runs a pass-through invocation, or returns its plan on a dry run. */
export function runPassThrough(pack: LoadedPack, argv: readonly string[], opts: ExecuteOptions = {}): Promise<ExecResult | DryRun> {
  return planOrRun(pack, opts, () => passThroughCommand(pack, argv, opts), () => []) as Promise<ExecResult | DryRun>;
}

/** True when a result of executeVerb or runPassThrough is a dry run's plan. */
export function isDryRun(r: ExecResult | HttpResult | DryRun): r is DryRun {
  return "plan_id" in r;
}

/** Runs a checked plan with the environment it was planned with (§6.4); the result is raw (planOrRun masks it). */
async function runPlan(plan: Plan, prepared: Prepared, opts: ExecuteOptions): Promise<ExecResult> {
  const { load, secrets } = prepared;
  if (!load.ok) throw load.error;
  const [file, ...args] = plan.argv as [string, ...string[]];
  const live = opts.onOutput === undefined ? undefined : new LiveOutput(secrets, opts.onOutput);
  const release = await opts.slots?.acquire(opts.signal);
  const r = await runProcess({
    file,
    args,
    env: prepared.childEnv,
    cwd: plan.cwd,
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
  const json = r.stdout_truncated ? undefined : stdoutJson(r.stdout);
  if (json !== undefined) result.json = json.value;
  return result;
}
