// The credentials of a call, read once, and every secret it must mask (§12).

import type { LoadedPack } from "../../pack/types.js";
import type { PlanOptions } from "../call.js";
import { bindingLoadsCredentials, credentialFilePath, packCredentials, type Credentials } from "./credentials.js";
import { AGENT_FOLDERS, agentFolderHolding, agentFoldersOf } from "../agent-folders.js";
import { CredentialError } from "../errors.js";
import { runsFrom, trustedCopy, type RunFrom } from "../trust/pack-copy.js";
import { isRequestPlan, type AnyPlan } from "../plan.js";
import { secretSet, type SecretSet } from "./redact.js";
import { argSecrets, everyPackSecrets, policyEnvSecrets } from "./secrets.js";
import { requireTrust, type PackBinding, type TrustRecord } from "../trust/trust.js";
import { trustReview } from "../trust/trust-review.js";
import { argsSchemaOf } from "../validate-args.js";

/**
 * The pack's credentials, read once per call: a failure is kept, not thrown, because planning
 * and dry runs do not need them (the run itself then reports it).
 */
export type CredentialLoad = { ok: true; credentials: Credentials } | { ok: false; error: unknown };

export function credentialsOf(pack: LoadedPack, opts: PlanOptions): CredentialLoad {
  const env = opts.env ?? process.env;
  try {
    if (pack.surface?.binding?.hub === "local-credential" && bindingLoadsCredentials(pack.surface.binding)) refuseAgentsFile(credentialFilePath(env), opts);
    return { ok: true, credentials: packCredentials(pack, env) };
  } catch (error) {
    return { ok: false, error };
  }
}

/** A credential file in a folder the agent works in is not used: the agent could read the person's credentials there, and put its own. */
function refuseAgentsFile(file: string, opts: PlanOptions): void {
  const folder = agentFolderHolding(file, agentFoldersOf(opts.cwd));
  if (folder === undefined) return;
  throw new CredentialError(
    "credentials_insecure",
    `the credential file ${file} lies in ${JSON.stringify(folder)}, a folder the agent works in (${AGENT_FOLDERS}), where it can read your credentials and put its own; keep it where the agent cannot (HCP_CREDENTIALS)`,
  );
}

/** What hcp run's trust check found when the call was planned: what the pack binds as trusted, and whether a person was asked to trust it. */
export interface TrustAtPlan {
  binding: PackBinding;
  asked: boolean;
}

/**
 * hcp run: the one gate before a call reads a credential or runs anything. A pack a person did not trust is refused
 * (thrown) before anything is read or run, whatever its binding, so a dry run is refused too. Undefined elsewhere.
 */
export async function trustAtPlan(pack: LoadedPack, opts: PlanOptions, stateDir: string): Promise<TrustAtPlan | undefined> {
  if (opts.trust === undefined) return undefined;
  const { ask, named } = opts.trust;
  let asked = false;
  const asker =
    ask &&
    ((text: string) => {
      asked = true;
      return ask(text);
    });
  const review = (binding: PackBinding, previous: TrustRecord | undefined) => trustReview(pack, opts.env ?? process.env, binding, previous);
  const binding = await requireTrust(pack, stateDir, asker === undefined ? undefined : { asker, review }, named);
  return { binding, asked };
}

/**
 * hcp run, just before the program starts or the request is sent: the pack must still be as a person trusted it. The
 * first check (trustAtPlan, `atPlan`) may be long past: a person read the trust or approval prompt meanwhile, while
 * whoever can write the pack's folder could change what would run. A program plan then runs from hcp's verified copy of
 * the trusted folder (pack-copy.ts), which nothing written in the folder from now on reaches: the returned program and
 * working folder (undefined: as planned, for hcp exec and serve, or a request).
 */
export async function stillTrusted(pack: LoadedPack, opts: PlanOptions, stateDir: string, plan: AnyPlan, atPlan: TrustAtPlan | undefined): Promise<RunFrom | undefined> {
  if (opts.trust === undefined) return undefined;
  const binding = unwaited(pack, plan, atPlan) ?? (await requireTrust(pack, stateDir, undefined, opts.trust.named));
  if (isRequestPlan(plan)) return undefined;
  return runsFrom(plan, pack.root, trustedCopy(stateDir, pack.root, binding.tree.sha256), binding.programs, pack.policy?.cwd !== undefined);
}

/**
 * The binding the first check found, where nobody can have kept the call waiting since (no trust prompt, no approval,
 * no keyring that may ask to be unlocked): that check, a moment ago, stands for the one just before the run, which
 * would hash every program outside the folder again (63 ms of CPU for one of 99 MB).
 */
function unwaited(pack: LoadedPack, plan: AnyPlan, atPlan: TrustAtPlan | undefined): PackBinding | undefined {
  if (atPlan === undefined || atPlan.asked || plan.policy.confirm !== false || pack.surface?.binding?.hub === "keyring") return undefined;
  return atPlan.binding;
}

/** The secrets of a call: every one, and those a person is shown masked in a plan made from masked arguments. */
export interface CallSecrets {
  /** Every secret of the call (§12): what leaves it (results, errors, the agent's dry run) is masked with these. */
  secrets: SecretSet;
  /**
   * All but the arguments' values: a plan shown to a person, or logged, shows each secret argument as `***` in its own
   * place (Command's shownArgv), so that a value the agent chose cannot mask another part of the plan.
   */
  shownSecrets: SecretSet;
}

/**
 * Every secret of a call (§12): the pack's credential values (a hub that cannot be read has none to
 * leak), every value of the credential file (whichever pack it is for), the secrets of hcp's own environment and of
 * the transport, its secret-looking policy `env` values and the arguments its schema marks secret.
 */
export function secretsOf(pack: LoadedPack, load: CredentialLoad, opts: PlanOptions, args: () => string[]): CallSecrets {
  const env = opts.env ?? process.env;
  const credentials = load.ok ? load.credentials.secrets : [];
  const own = [...credentials, ...everyPackSecrets(env), ...policyEnvSecrets(pack, env), ...(opts.serverSecrets ?? [])];
  const given = args();
  const secrets = secretSet([...own, ...given]);
  return { secrets, shownSecrets: given.length === 0 ? secrets : secretSet(own) };
}

/** The arguments of a verb its args schema marks secret; none when the verb cannot be found. */
export function verbArgSecrets(pack: LoadedPack, verbKey: string, args: unknown): () => string[] {
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
