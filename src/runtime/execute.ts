// Executes pack verbs (§6, §7): the decision of a call (plan, dry run or policy, approval, audit, run, audit),
// its one masked way out, and the runtime's API for verbs and pass-through.

import type { LoadedPack } from "../pack/types.js";
import { authorize, defaultGate, issuePlan, type Gate } from "./approval/gate.js";
import { OUTPUT_HELD, type DryRun, type ExecResult, type ExecuteOptions, type PlanOptions } from "./call.js";
import { credentialsOf, secretsOf, stillTrusted, trustAtPlan, verbArgSecrets, type CallSecrets, type CredentialLoad, type TrustAtPlan } from "./secrets/call-secrets.js";
import { passThroughCommand, verbCommand, type Command } from "./command.js";
import { audit, auditOrWarn, auditRefusal } from "./decision-audit.js";
import { monotonicMs } from "./clock.js";
import { RuntimeError } from "./errors.js";
import { LiveOutput } from "./process/live-output.js";
import type { HttpResult } from "./openapi/result.js";
import { runRequestPlan } from "./openapi/verb.js";
import type { RunFrom } from "./trust/pack-copy.js";
import { isRequestPlan, subjectOf, type Plan } from "./plan.js";
import { prepare, type Prepared } from "./prepare.js";
import { runProcess } from "./process/process.js";
import { refuseChangedPack } from "./pack-changed.js";
import { redactText } from "./secrets/redact.js";
import { maskError, maskResult } from "./secrets/secrets.js";
import { stdoutJson } from "./stdout-json.js";
import { refuseConfirmOnPassThrough, refuseUnneededConfirm, refuseUnneededDryRun } from "./unneeded-controls.js";

export type { DryRun, ExecResult, ExecuteOptions, PlanOptions } from "./call.js";
export { argsSchemaOf } from "./validate-args.js";

/** The gate of the options, else the runtime environment's (nobody to ask). */
function gateOf(opts: PlanOptions): Gate {
  return opts.gate ?? defaultGate(opts.env ?? process.env);
}

const STDIN_PREVIEW = 2000;

/**
 * Makes the plan, then returns it on a dry run, or runs it once policy, approval and the audit log allow.
 * The one way out of the runtime for a call: its plan, its result and its errors are all masked here
 * (an openapi result is masked where it is made, with the credentials' wire forms too).
 */
async function planOrRun(pack: LoadedPack, opts: ExecuteOptions, command: () => Command, args: () => string[]): Promise<ExecResult | HttpResult | DryRun> {
  // A server's pack, loaded once, must still be what its files say (a one-shot run loaded them a moment ago).
  if (opts.oneCall !== true) refuseChangedPack(pack);
  const gate = gateOf(opts);
  const trust = await trustAtPlan(pack, opts, gate.stateDir);
  const load = credentialsOf(pack, opts);
  const secrets = secretsOf(pack, load, opts, args);
  try {
    return await decide(pack, opts, gate, trust, load, secrets, command);
  } catch (err) {
    throw maskError(err, secrets.secrets);
  }
}

/** How far a run got, for its audit line: whether its child ran (or its request went out), and how the child ended. */
interface RunProgress {
  started: boolean;
  exit_code?: number | null;
  duration_ms?: number;
}

/** planOrRun's decisions, in order: plan, dry run or policy, approval, audit, run, audit. */
async function decide(
  pack: LoadedPack,
  opts: ExecuteOptions,
  gate: Gate,
  trust: TrustAtPlan | undefined,
  load: CredentialLoad,
  callSecrets: CallSecrets,
  command: () => Command,
): Promise<ExecResult | HttpResult | DryRun> {
  const { secrets, shownSecrets } = callSecrets;
  const prepared = prepare(pack, command(), opts, load, callSecrets, gate.stateDir);
  const { plan } = prepared;
  // What a person or the plan store is shown: made only for a dry run or a plan to approve.
  const input = () => ({
    plan,
    shown: prepared.shown,
    ttlSeconds: prepared.ttlSeconds,
    stdinPreview: opts.stdin === undefined ? undefined : redactText(opts.stdin.slice(0, STDIN_PREVIEW), shownSecrets),
    stdinMoreBytes: opts.stdin === undefined ? undefined : Buffer.byteLength(opts.stdin.slice(STDIN_PREVIEW), "utf8"),
  });
  if (opts.dryRun) {
    refuseUnneededDryRun(plan);
    const issued = await issuePlan(gate, input());
    await audit(gate, opts, prepared, { decision: "dry_run", plan_id: issued.plan_id, by: null });
    return { plan: prepared.shown, ...issued };
  }
  let approval: { plan_id: string | null; by: string | null };
  try {
    if (plan.policy.policy === "write" && !opts.allowWrite) {
      throw new RuntimeError("write_not_allowed", writeNotAllowed(subjectOf(plan), opts.transport));
    }
    approval = plan.policy.confirm === false ? { plan_id: null, by: null } : await authorize(gate, { ...input(), given: opts.confirm, signal: opts.signal, transport: opts.transport });
  } catch (err) {
    await auditRefusal(gate, opts, prepared, err);
    throw err;
  }
  // Flushed to disk before the child starts: no write runs unrecorded (fail closed).
  await audit(gate, opts, prepared, { decision: "approved", ...approval });
  let result: ExecResult | HttpResult;
  const progress: RunProgress = { started: false };
  try {
    const from = await stillTrusted(pack, opts, gate.stateDir, plan, trust);
    if (isRequestPlan(plan)) {
      const loaded = prepared.load;
      if (!loaded.ok) throw loaded.error;
      // In a slot, as a child is: its deadline starts once the request may be sent.
      const send = () => {
        progress.started = true;
        const since = monotonicMs();
        // A request that fails or is cancelled still took its time: the audit line says how long.
        return runRequestPlan(pack, plan, loaded.credentials, secrets, opts).finally(() => (progress.duration_ms = Math.round(monotonicMs() - since)));
      };
      result = await (opts.slots === undefined ? send() : opts.slots.run(send, opts.signal));
    } else {
      result = maskResult(await runPlan(plan, prepared, opts, progress, from), secrets);
    }
  } catch (err) {
    // Once the child ran (or the request went out), what ended it (a cancellation, a failed request) ends a run that
    // may have done its work: a run that failed, never a refusal.
    if (progress.started) {
      const reason = err instanceof RuntimeError ? err.code : "internal";
      await auditOrWarn(gate, opts, prepared, { decision: "failed", ...approval, exit_code: progress.exit_code ?? null, duration_ms: progress.duration_ms ?? null, reason });
    } else await auditRefusal(gate, opts, prepared, err);
    throw err;
  }
  const ok = "ok" in result ? result.ok : result.exit_code === 0 && !result.timed_out && result.signal === null;
  const exit_code = "exit_code" in result ? result.exit_code : null;
  // The child has run: its result is still the answer; the log's failure is said on stderr.
  await auditOrWarn(gate, opts, prepared, { decision: ok ? "ran" : "failed", ...approval, exit_code, duration_ms: result.duration_ms });
  return result;
}

/**
 * Why a write is refused, and who can change that, in the caller's terms: the person at hcp run adds --allow-write;
 * an agent on exec or MCP cannot restart the server that serves it, a person can.
 */
function writeNotAllowed(subject: string, transport: ExecuteOptions["transport"]): string {
  if (transport === "json_exec" || transport === "mcp") {
    const server = transport === "mcp" ? "hcp serve" : "hcp exec";
    return `${subject} writes, and this ${server} was started without --allow-write, so writes are refused: only a person can restart it with --allow-write (tell them what you wanted to do); nothing was run`;
  }
  return `${subject} writes, and writes are not allowed: add --allow-write to hcp run (or to the hcp exec or hcp serve command that serves it); nothing was run`;
}

/** A dry run of the verb: its plan (credential values masked) and the plan_id that confirms exactly it. Throws RuntimeError. */
export async function planVerb(pack: LoadedPack, verbKey: string, args: unknown, opts: PlanOptions = {}): Promise<DryRun> {
  return (await executeVerb(pack, verbKey, args, { ...opts, dryRun: true })) as DryRun;
}

/** Runs a verb, or returns its plan on a dry run. Confirm-gated verbs need an approval or the plan's id (§7). */
export async function executeVerb(pack: LoadedPack, verbKey: string, args: unknown, opts: ExecuteOptions = {}): Promise<ExecResult | HttpResult | DryRun> {
  refuseUnneededConfirm(pack, verbKey, opts.confirm);
  return planOrRun(pack, opts, () => verbCommand(pack, verbKey, args, opts), verbArgSecrets(pack, verbKey, args));
}

/** A dry run of a pass-through invocation (§6.6): argv is the subcommand and its arguments, after the bin. */
export async function planPassThrough(pack: LoadedPack, argv: readonly string[], opts: PlanOptions = {}): Promise<DryRun> {
  return (await runPassThrough(pack, argv, { ...opts, dryRun: true })) as DryRun;
}

/** Runs a pass-through invocation, or returns its plan on a dry run. */
export async function runPassThrough(pack: LoadedPack, argv: readonly string[], opts: ExecuteOptions = {}): Promise<ExecResult | DryRun> {
  refuseConfirmOnPassThrough(pack, opts.confirm);
  return planOrRun(pack, opts, () => passThroughCommand(pack, argv, opts), () => []) as Promise<ExecResult | DryRun>;
}

/** True when a result of executeVerb or runPassThrough is a dry run's plan. */
export function isDryRun(r: ExecResult | HttpResult | DryRun): r is DryRun {
  return "plan_id" in r;
}

/**
 * Runs a checked plan with the environment it was planned with (§6.4), its program and working folder taken `from`
 * hcp's copy of a trusted pack when given (the result still names the plan's); the result is raw (planOrRun masks it).
 */
async function runPlan(plan: Plan, prepared: Prepared, opts: ExecuteOptions, progress: RunProgress, from?: RunFrom): Promise<ExecResult> {
  const { load, secrets } = prepared;
  if (!load.ok) throw load.error;
  const [planned, ...args] = plan.argv as [string, ...string[]];
  const file = from?.file ?? planned;
  const live = opts.onOutput === undefined ? undefined : new LiveOutput(secrets, opts.onOutput);
  const release = await opts.slots?.acquire(opts.signal);
  const r = await runProcess({
    file,
    args,
    env: prepared.childEnv,
    cwd: from?.cwd ?? plan.cwd,
    stdin: opts.stdin,
    timeoutMs: plan.policy.timeout_ms,
    maxOutputBytes: plan.policy.max_output_bytes,
    signal: opts.signal,
    onOutput: live === undefined ? undefined : (stream, kept, total) => live.push(stream, kept, total),
    lastRun: opts.oneCall === true,
  })
    .catch((err: unknown) => {
      throw from === undefined ? err : from.asPlanned(err);
    })
    .finally(release);
  Object.assign(progress, { started: true, exit_code: r.exit_code, duration_ms: r.duration_ms });
  live?.end({ stdout: r.stdout_truncated, stderr: r.stderr_truncated });
  if (r.output_held) opts.onWarning?.(OUTPUT_HELD);
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
