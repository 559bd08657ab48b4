// `hcp init`: writes a pack (surface.json, policy.json, HARNESS.md) from a rungrad manifest (hcp.md §10) or an
// OpenAPI document (§11, with the document copied in), all or nothing.

import { systemReason } from "../../errno.js";
import { shellWord } from "../../shell-word.js";
import { existsSync, readdirSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { FileWriteError, writeFiles } from "../../files.js";
import type { Context } from "../../framework/index.js";
import { stableJSON } from "../../json/stable.js";
import { isPackId } from "../../pack/fields.js";
import { parseHarness } from "../../pack/harness.js";
import { PACK_FILE_MAX_BYTES } from "../../pack/load.js";
import { readRegularFile } from "../../read-regular.js";
import { formatIssue, isObject } from "../../pack/issues.js";
import { POLICY_CLASSES, effectivePolicy, parsePolicy, policyClasses, type PolicyClass } from "../../pack/policy.js";
import { policyMarks } from "../../pack/harness-policy.js";
import { packFromAgentMeta } from "../../pack/from-agentmeta.js";
import { parseSurface } from "../../pack/surface.js";
import type { Issue, PolicyDocument, Surface, SurfaceVerb } from "../../pack/types.js";
import type { AgentMetaDocument } from "../../agentmeta/types.js";
import type { AuthChoice } from "../../runtime/openapi/auth-scheme.js";
import type { DocumentText } from "../../runtime/openapi/document.js";
import { realOrSelf } from "../../runtime/trust/pack-links.js";
import { resolveProgram } from "../../runtime/resolve.js";
import { CliError } from "../errors.js";
import { optionalString } from "../flags.js";
import { NotRungradError } from "../input.js";
import { projectText, readManifestText } from "../rungrad/documents.js";
import { isVariableName } from "../../runtime/env.js";
import { firstAndMore, plural } from "../../listing.js";
import { refuseWhereAgentRuns } from "./flags.js";

interface InitOptions {
  fromManifest?: string;
  /** An OpenAPI document: a file, or an https (or loopback http) URL. */
  fromOpenapi?: string;
  fromExe?: string;
  /** A CLI built with cobra, read from its completion and help. */
  fromCobra?: string;
  /** wrap.bin; by default the --from-exe program (made absolute when it is a path) or the tool name. */
  bin?: string;
  /** The credential variable of an auth-requiring CLI (default `<TOOL>_TOKEN`). */
  credentialEnv?: string;
  out: string;
  /** The pack id; by default the tool name or the document's title, in id form. */
  id?: string;
  /** A security scheme to add to a document that declares none (`bearer`, `basic`, `header:NAME`, `query:NAME`). */
  auth?: string;
  force?: boolean;
  /** Keep the pack's policy.json as it is, and write the other files to agree with it. */
  keepPolicy?: boolean;
  /** Generate and check the pack, write nothing. */
  dryRun?: boolean;
}

/** What init wrote (or, in a dry run, would write). */
interface InitResult {
  dry_run: boolean;
  out: string;
  pack_id: string;
  files: string[];
  notes: string[];
}

const FILES = ["surface.json", "policy.json", "HARNESS.md"] as const;

function entries(dir: string): string[] | undefined {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new CliError(`read ${dir}: ${systemReason(e)}`);
  }
}

export async function initHandler(ctx: Context): Promise<void> {
  const { result: r, verbs, credentials } = await initPack({
    fromManifest: optionalString(ctx, "from-manifest"),
    fromExe: optionalString(ctx, "from-exe"),
    fromCobra: optionalString(ctx, "from-cobra"),
    fromOpenapi: optionalString(ctx, "from-openapi"),
    bin: optionalString(ctx, "bin"),
    credentialEnv: optionalString(ctx, "credential-env"),
    out: ctx.string("out"),
    id: optionalString(ctx, "id"),
    auth: optionalString(ctx, "auth"),
    force: ctx.bool("force"),
    keepPolicy: ctx.bool("keep-policy"),
    dryRun: ctx.dryRun,
  });
  const what = `pack ${r.pack_id} (${plural(verbs, "verb")}): ${r.files.join(", ")}`;
  await ctx.writeResult(r, () => (r.dry_run ? `DRY RUN: would write ${what}\n  no changes were made\n` : `wrote ${what}\n`));
  for (const n of r.notes) ctx.infof(`note: ${n}`);
  if (!r.dry_run) for (const line of nextSteps(ctx.string("out"), credentials)) ctx.infof(line);
}

/** The pack files to write, checked, with what the generator noted. */
interface Generated {
  id: string;
  files: { path: string; content: string }[];
  verbs: number;
  notes: string[];
  /** The `hcp credentials set …` arguments that store what the pack's verbs need, one entry per credential. */
  credentials: string[][];
}

/** `hcp credentials set FAMILY NAME` for each name policy.json lists, when the pack reads the credential file. */
function credentialCommands(binding: { hub: string; family?: string }, names: readonly string[] | undefined, scheme: boolean): string[][] {
  if (binding.hub !== "local-credential" || binding.family === undefined) return [];
  return (names ?? []).map((n) => ["credentials", "set", binding.family!, n, ...(scheme ? ["--scheme"] : [])]);
}

/** What to do next with a written pack, for the person who ran hcp init. */
function nextSteps(out: string, credentials: string[][]): string[] {
  const dir = shellWord(out);
  return [
    "next:",
    ...credentials.map((c) => `  hcp ${c.map(shellWord).join(" ")}   # store the credential its verbs need (it asks for the value)`),
    `  hcp describe ${dir}   # each verb's arguments and policy; edit ${join(out, "policy.json")} to change what may run`,
    // hcp run refuses every pack no person trusted: without this line a new user's first run is refused.
    `  hcp trust ${dir}   # you, at your terminal: review what it runs, then y; hcp run runs only packs you trusted`,
    `  hcp mcp-config ${dir} --client claude   # the entry that serves it to your MCP client (or vscode, cursor, codex)`,
  ];
}

/** Whether --from-openapi names a URL (fetched) rather than a file. */
const isUrl = (source: string): boolean => /^https?:\/\//i.test(source);

async function initPack(opts: InitOptions): Promise<{ result: InitResult; verbs: number; credentials: string[][] }> {
  if ([opts.fromManifest, opts.fromExe, opts.fromCobra, opts.fromOpenapi].filter((o) => o !== undefined).length !== 1) {
    throw new CliError("give exactly one of --from-manifest FILE (or -), --from-exe PROGRAM, --from-cobra PROGRAM and --from-openapi FILE|URL");
  }
  // They run the program the command line names: where the agent's commands run, one it wrote (a script, or
  // `/bin/sh`, which reads `__rungrad_manifest` in the working folder as its script).
  if (opts.fromExe !== undefined || opts.fromCobra !== undefined) {
    refuseWhereAgentRuns(`hcp init ${opts.fromExe !== undefined ? "--from-exe" : "--from-cobra"}`, "run a program of its choosing through hcp (hcp init runs the program it is given)");
  }
  // A URL is a request to a server of the command line's choosing, whose query can carry out what the agent read.
  if (opts.fromOpenapi !== undefined && isUrl(opts.fromOpenapi)) {
    refuseWhereAgentRuns("hcp init --from-openapi URL", "send a request of its choosing through hcp (a URL can carry out what it read); give the document as a file");
  }
  if (opts.id !== undefined && !isPackId(opts.id)) {
    throw new CliError(`--id ${JSON.stringify(opts.id)} is not a pack id: 1 to 128 characters, lower-case letters, digits, ".", "_" and "-", starting with a letter or digit`);
  }
  const out = resolve(opts.out);
  const existing = entries(out);
  if (existing !== undefined && existing.length > 0 && !opts.force) {
    // Exit 2, as `rungrad new` (Go's) and `rungrad skill` refuse what already exists: one code for it in both programs.
    const force = opts.keepPolicy === true ? "add --force: with --keep-policy, its policy.json is kept and the other pack files replaced" : "use --force to replace the pack files in it";
    throw new CliError(`refusing to write into ${opts.out}: it already exists and is not empty (${force})`, 2);
  }
  if (opts.fromOpenapi !== undefined && (opts.bin !== undefined || opts.credentialEnv !== undefined)) {
    throw new CliError("--bin and --credential-env are for packs from a manifest; an openapi pack takes its credentials from the document's security schemes");
  }
  if (opts.fromOpenapi === undefined && opts.auth !== undefined) {
    throw new CliError("--auth is for packs from an OpenAPI document; a manifest's pack names its credential variable with --credential-env");
  }
  const kept = opts.keepPolicy === true ? keptPolicy(out, opts.out) : undefined;
  const auth = opts.auth === undefined ? undefined : await authOf(opts.auth);
  const pack = opts.fromOpenapi !== undefined ? await fromOpenApi(opts.fromOpenapi, opts.id, auth, kept) : await fromCli(opts, kept);
  if (!opts.dryRun) {
    try {
      await writeFiles(out, pack.files, { replace: opts.force });
    } catch (e) {
      if (e instanceof FileWriteError) throw new CliError(e.message, 2);
      throw e;
    }
  }
  const files = pack.files.map((f) => join(opts.out, f.path));
  return { result: { dry_run: opts.dryRun ?? false, out: opts.out, pack_id: pack.id, files, notes: pack.notes }, verbs: pack.verbs, credentials: pack.credentials };
}

/** The person's policy.json (--keep-policy): its text, written back as it is, and what it says. */
interface KeptPolicy {
  text: string;
  policy: PolicyDocument;
  /** The verbs of the surface.json it was kept beside (none when that could not be read). */
  before: Readonly<Record<string, unknown>>;
}

/** --keep-policy: the policy.json of the pack folder `out` (`shown` as given). */
function keptPolicy(out: string, shown: string): KeptPolicy {
  const file = join(shown, "policy.json");
  let text: string;
  try {
    text = readRegularFile(join(out, "policy.json"), PACK_FILE_MAX_BYTES).toString("utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") throw new CliError(`--keep-policy: there is no ${file} to keep (without --keep-policy, hcp init writes a new one)`, 2);
    throw new CliError(`--keep-policy: read ${file}: ${systemReason(e)}`, 2);
  }
  let policy: unknown;
  try {
    policy = JSON.parse(text);
  } catch {
    throw new CliError(`--keep-policy: ${file} is not JSON: hcp validate ${shellWord(shown)} says where`);
  }
  if (typeof policy !== "object" || policy === null || Array.isArray(policy)) throw new CliError(`--keep-policy: ${file} must be a JSON object`);
  return { text, policy: policy as PolicyDocument, before: surfaceVerbsIn(out) };
}

/** The verbs of the pack's surface.json as it is; none when it cannot be read (every verb then counts as changed). */
function surfaceVerbsIn(out: string): Readonly<Record<string, unknown>> {
  try {
    const surface: unknown = JSON.parse(readRegularFile(join(out, "surface.json"), PACK_FILE_MAX_BYTES).toString("utf8"));
    const verbs = isObject(surface) ? surface["verbs"] : undefined;
    return isObject(verbs) ? verbs : {};
  } catch {
    return {};
  }
}

/** What the generators give: the files' documents, HARNESS.md for a policy, and notes for the person. */
interface GeneratedDocuments {
  surface: { verbs: Record<string, SurfaceVerb> };
  policy: PolicyDocument;
  harness: (policy: PolicyDocument) => string;
  notes: string[];
}

/**
 * The pack's three files, checked: policy.json the generated one, or the person's kept (checked against the new
 * surface first, and its verbs new to it noted), and HARNESS.md saying what that policy.json does.
 */
function packContent(pack: GeneratedDocuments, kept: KeptPolicy | undefined): Record<(typeof FILES)[number], string> {
  const content = { "surface.json": stableJSON(pack.surface), "policy.json": kept?.text ?? stableJSON(pack.policy), "HARNESS.md": pack.harness(pack.policy) };
  if (kept === undefined) {
    checked(content);
    return content;
  }
  checked(content, "kept");
  refuseWidened(pack, kept);
  content["HARNESS.md"] = pack.harness(kept.policy);
  checked(content);
  pack.notes.unshift(keptNote(pack.surface, kept.policy), ...remadeNote(pack.surface, kept.before));
  return content;
}

/**
 * The verbs whose command or arguments surface.json said otherwise before it was made anew: an edit the person made
 * there (a flag added to a verb, as hcp init's notes suggest) is gone, and is said to be, not lost silently.
 */
function remadeNote(surface: GeneratedDocuments["surface"], before: Readonly<Record<string, unknown>>): string[] {
  const remade = Object.entries(surface.verbs).flatMap(([key, verb]) => {
    const was = Object.hasOwn(before, key) ? before[key] : undefined;
    if (!isObject(was)) return [];
    const parts = (["cli", "args"] as const).filter((part) => !isDeepStrictEqual(was[part], verb[part]));
    return parts.length === 0 ? [] : [`"${key}" (its ${parts.join(" and ")})`];
  });
  if (remade.length === 0) return [];
  return [`surface.json is made anew from the CLI: ${plural(remade.length, "verb")} now ${remade.length === 1 ? "differs" : "differ"} from what it said, an edit of yours there not kept: ${firstAndMore(remade, 10)}; make such an edit again after each hcp init`];
}

const CLASS_SAID: Record<PolicyClass, string> = { read: "read", write: "write", person: "a person approves each run", deny: "denied" };
/** How many checks a class gives a verb: read fewest, deny most. */
const strictness = (c: PolicyClass) => POLICY_CLASSES.indexOf(c);

/**
 * --keep-policy: refuses a kept policy.json that gives a verb fewer checks than hcp gives it now, where the verb changed
 * since the pack was made (anything of its surface.json entry: an API's verb names its operation, whose method may be
 * all that changed; or it is new): the person decided for what it did then. A GET become DELETE, or a listing become
 * destructive, ran as the read the policy.json kept said it was, with no person. A verb that did not change keeps
 * whatever the person made of it (a gated write made a read on purpose).
 */
function refuseWidened(pack: GeneratedDocuments, kept: KeptPolicy): void {
  const surface = pack.surface as Surface;
  const now = policyClasses({ surface, policy: pack.policy });
  const keeps = policyClasses({ surface, policy: kept.policy });
  const widened = Object.entries(surface.verbs).filter(([key, verb]) => {
    const before = Object.hasOwn(kept.before, key) ? kept.before[key] : undefined;
    return !isDeepStrictEqual(before, verb) && strictness(keeps[key]!) < strictness(now[key]!);
  });
  if (widened.length === 0) return;
  const shown = widened.map(([key]) => `"${key}" (policy.json: ${CLASS_SAID[keeps[key]!]}; hcp now: ${CLASS_SAID[now[key]!]})`);
  throw new CliError(
    `--keep-policy: policy.json gives ${plural(widened.length, "verb")} fewer checks than hcp gives ${widened.length === 1 ? "it" : "them"} now, and each changed since the pack was made: ${firstAndMore(shown, 10)}; make ${widened.length === 1 ? "its entry" : "their entries"} in policy.json at least as strict (or remove ${widened.length === 1 ? "it" : "them"}) and run this again (once the pack is made, loosen ${widened.length === 1 ? "it" : "them"} there if you mean to); nothing was written`,
    2,
  );
}

/** What --keep-policy did, and what the kept policy.json makes of the verbs it does not name (new in the CLI). */
function keptNote(surface: GeneratedDocuments["surface"], policy: PolicyDocument): string {
  const named = policy.verbs ?? {};
  const unnamed = Object.keys(surface.verbs).filter((k) => !Object.hasOwn(named, k));
  const kept = "policy.json kept as it was (--keep-policy), and HARNESS.md written to say what it does";
  if (unnamed.length === 0) return kept;
  const shown = unnamed.map((k) => {
    const p = effectivePolicy({ surface, policy }, k);
    return `"${k}" (${policyMarks(p.policy, p.confirm).join(", ")})`;
  });
  const which = unnamed.length === 1 ? "1 verb it does not name follows its default or its" : `${unnamed.length} verbs it does not name follow its default or their`;
  return `${kept}; ${which} surface.json hint: ${firstAndMore(shown, 10)}; name them in policy.json to decide otherwise`;
}

/** Refuses a generated pack that would not load: checked in memory, as the loader checks the files. */
function checked(content: Record<(typeof FILES)[number], string>, policy: "generated" | "kept" = "generated"): void {
  for (const file of FILES) {
    const bytes = Buffer.byteLength(content[file]);
    if (bytes > PACK_FILE_MAX_BYTES) throw new CliError(`the generated pack does not validate: its ${file} would be ${bytes} bytes, over the ${PACK_FILE_MAX_BYTES >> 20} MiB a pack file may be`, 2);
  }
  const errors = packIssues(content).filter((i) => i.severity === "error");
  if (errors.length === 0) return;
  const what = policy === "kept" ? "the policy.json kept (--keep-policy) does not fit the pack made now" : "the generated pack does not validate";
  throw new CliError(`${what}: ${errors.map((i) => formatIssue(i)).join("; ")}`, 2);
}

/** --auth's value as a scheme, or a usage error naming its forms. */
async function authOf(text: string): Promise<AuthChoice> {
  const { AUTH_FORMS, authChoice } = await import("../../runtime/openapi/auth-scheme.js");
  const choice = authChoice(text);
  if (choice === undefined) throw new CliError(`--auth ${JSON.stringify(text)} is not one of ${AUTH_FORMS} (NAME: the header or query parameter that carries the key)`);
  return choice;
}

/**
 * §11: the document (JSON or YAML, kept as read), one verb per operation, each bound to its operation. With `auth`,
 * the pack's copy of the document declares that scheme (hcp init --auth: the document must declare none).
 */
async function fromOpenApi(source: string, id: string | undefined, auth: AuthChoice | undefined, kept: KeptPolicy | undefined): Promise<Generated> {
  const { DocumentError, looksLikeJson, parseDocument, readDocumentText } = await import("../../runtime/openapi/document.js");
  const { packFromOpenApi } = await import("../../runtime/openapi/generate.js");
  const { findOperation, lookupOf, operationsOf } = await import("../../runtime/openapi/operations.js");
  let doc;
  try {
    const read = await readDocumentText(isUrl(source) ? { url: source } : { path: resolve(source) });
    // Parsed and dereferenced once, with the scheme --auth adds (a 13 MB document's dereference is 300 ms).
    doc = await parseDocument(auth === undefined ? read.text : await withAuth(read, auth), read.source, read.url);
  } catch (e) {
    if (e instanceof DocumentError) throw new CliError(e.message, e.code === "io" ? 2 : 1);
    throw e;
  }
  const operations = operationsOf(doc.doc);
  if (operations.length === 0) throw new CliError(`the OpenAPI document ${doc.source} has no operations (under paths), and a pack needs at least one`);
  const fileName = looksLikeJson(doc.text) ? "openapi.json" : "openapi.yaml";
  const pack = packFromOpenApi(doc, fileName, id);
  const content = packContent(pack, kept);
  const lookup = lookupOf(operations);
  for (const [key, verb] of Object.entries(pack.surface.verbs)) {
    const op = findOperation(lookup, key, verb);
    if (typeof op === "string") throw new CliError(`the generated pack does not validate: verbs[${JSON.stringify(key)}]: ${op}`, 2);
  }
  if (auth === undefined) {
    const { AUTH_FORMS, ownSecurity } = await import("../../runtime/openapi/auth-scheme.js");
    // GitHub's declares none, and its API takes a token all the same: without this, the person meets it as a 401.
    if (ownSecurity(doc.doc) === undefined) {
      pack.notes.unshift(`the document declares no security, so its verbs send no credential; if its API takes one (GitHub's takes a token), make the pack again with --auth (${AUTH_FORMS}): docs/openapi.md`);
    }
  } else {
    const sending = operations.filter((op) => op.security.some((r) => Object.hasOwn(r, auth.name))).length;
    const others = operations.length - sending;
    pack.notes.unshift(
      `the pack's ${fileName} is the document with security scheme ${auth.name} (${auth.said}) added: ${sending} of ${operations.length} operations send it` +
        (others > 0 ? ` (${others} have a security requirement of their own, kept as it is)` : ""),
    );
  }
  return {
    id: pack.surface.id,
    files: [...FILES.map((f) => ({ path: f, content: content[f] })), { path: fileName, content: pack.document.text }],
    verbs: Object.keys(pack.surface.verbs).length,
    notes: pack.notes,
    credentials: credentialCommands(pack.surface.binding, (kept?.policy ?? pack.policy).credentials, true),
  };
}

/**
 * The document's text with the scheme added; a usage error when it has security of its own. Text that does not parse
 * is passed on as it is, for parseDocument to say where.
 */
async function withAuth(read: DocumentText, auth: AuthChoice): Promise<string> {
  const { withAuthScheme } = await import("../../runtime/openapi/auth-scheme.js");
  let added;
  try {
    added = await withAuthScheme(read.text, auth);
  } catch {
    return read.text;
  }
  if ("refused" in added) throw new CliError(`--auth is for a document that declares no security; ${read.source} ${added.refused}`);
  return added.text;
}

/** A program that prints no manifest: its pack is written by hand, and the error says where that is shown. */
function orByHand(err: unknown): never {
  if (!(err instanceof NotRungradError)) throw err;
  throw new CliError(`${err.message}; for any other CLI, write its pack by hand: docs/packs.md, "Writing a pack by hand, for any other CLI"`, err.exitCode);
}

/** The CLI's agentmeta: projected from its rungrad manifest (§10), or read from a cobra CLI's completion and help. */
async function describedCli(opts: InitOptions): Promise<{ doc: AgentMetaDocument; notes: string[] }> {
  if (opts.fromCobra === undefined) return { doc: projectText(await readManifestText({ file: opts.fromManifest, fromExe: opts.fromExe }).catch(orByHand)), notes: [] };
  const { readCobraCli } = await import("./init-cobra.js");
  return await readCobraCli(opts.fromCobra);
}

/** How a cobra CLI's verbs were classed: by their names, which the person checks before trusting the pack. */
function classedByName(policy: PolicyDocument): string {
  const verbs = Object.entries(policy.verbs ?? {});
  const reads = verbs.filter(([, p]) => p === "read").map(([k]) => k).sort();
  const shown = firstAndMore(reads.map((k) => `"${k}"`), 5);
  const writes = reads.length > 0 ? "the others write" : verbs.length === 1 ? "it writes" : "all write";
  return (
    `${reads.length} of ${verbs.length} verbs are read by their names alone (${reads.length > 0 ? shown : "none"}) and ${writes}, each approved by a person (confirm: true): ` +
    "the CLI does not say which of its commands change things, so check policy.json before you trust the pack"
  );
}

/** §10: a wrap pack from a rungrad manifest, or from a cobra CLI (hcp init --from-cobra). */
async function fromCli(opts: InitOptions, kept: KeptPolicy | undefined): Promise<Generated> {
  const { doc, notes } = await describedCli(opts);
  const program = opts.fromExe ?? opts.fromCobra;
  const exe = program !== undefined && program.includes("/") ? resolve(program) : program;
  const bin = inPack(opts.bin ?? exe ?? doc.tool_name, opts.out);
  if (opts.credentialEnv !== undefined && !isVariableName(opts.credentialEnv)) {
    throw new CliError(`--credential-env ${JSON.stringify(opts.credentialEnv)} is not a variable name (letters, digits and _, not starting with a digit)`);
  }
  const pack = packFromAgentMeta(doc, { bin, credentialEnv: opts.credentialEnv, id: opts.id, foreign: opts.fromCobra !== undefined });
  // How the generator classed the verbs says nothing of a kept policy.json.
  pack.notes.unshift(...notes, ...(opts.fromCobra !== undefined && kept === undefined ? [classedByName(pack.policy)] : []));
  // Checked in memory: a dry run writes nothing at all.
  const content = packContent(pack, kept);
  const missing = missingProgram(bin, opts.out);
  return {
    id: pack.surface.id,
    files: FILES.map((f) => ({ path: f, content: content[f] })),
    verbs: Object.keys(pack.surface.verbs).length,
    notes: missing === undefined ? pack.notes : [...pack.notes, missing],
    credentials: credentialCommands(pack.surface.binding, (kept?.policy ?? pack.policy).credentials, false),
  };
}

/**
 * wrap.bin as written: a program inside the pack folder `out`, named by an absolute path, relative to it (`./bin/tool`),
 * since a trusted pack may not name its own folder by an absolute path (hcp runs it from a copy: runtime/trust/pack-self-paths.ts).
 */
function inPack(bin: string, out: string): string {
  if (!isAbsolute(bin)) return bin;
  const folder = resolve(out);
  for (const [path, root] of [
    [bin, folder],
    [realOrSelf(bin), realOrSelf(folder)],
  ] as const) {
    if (path.startsWith(root + sep)) return `./${relative(root, path).split(sep).join("/")}`;
  }
  return bin;
}

/**
 * A note when the pack's program would not be found when a verb runs (§6.1: a bare name on PATH, a
 * relative path against the pack folder, not against the folder hcp init ran in).
 */
function missingProgram(bin: string, out: string): string | undefined {
  let path: string;
  try {
    path = resolveProgram(bin, resolve(out), process.env["PATH"]);
  } catch {
    return `wrap.bin ${JSON.stringify(bin)} is not on PATH now, and hcp looks it up there each time a verb runs: put it on PATH, or give its path with --bin (or edit wrap.bin in surface.json)`;
  }
  if (existsSync(path)) return undefined;
  return `wrap.bin ${JSON.stringify(bin)} is relative to the pack folder, and there is no ${path}: give --bin an absolute path (or edit wrap.bin in surface.json)`;
}

/** The issues loadPack would report for these three files. */
function packIssues(content: Record<(typeof FILES)[number], string>): Issue[] {
  const surface = parseSurface(JSON.parse(content["surface.json"]));
  const policy = parsePolicy(JSON.parse(content["policy.json"]), surface.surface);
  return [...surface.issues, ...policy.issues, ...parseHarness(content["HARNESS.md"]).issues];
}
