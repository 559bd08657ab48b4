// Scaffold options and their validation, in Go's order and words; the result is the settings every generated file reads.

import { validateExtensionSet } from "../manifest/index.js";
import { checkSkillName } from "../skill/index.js";
import { invalid } from "./errors.js";
import { validateExample } from "./examples.js";
import { validNpmPackageName } from "./npmname.js";
import { productServices, TOOL_NAME_RE, type ServiceSetting } from "./services.js";
import { DEFAULT_RUNGRAD_DEPENDENCY } from "./toolchain.js";

/** What a caller (or `rungrad new`) asks for. Product-only fields count as set when non-empty (true for skill). */
export interface ScaffoldOptions {
  /** Tool and binary name. */
  name: string;
  /** npm package name; default the tool name. */
  package?: string;
  /** npm dependency spec for `rungrad` in the generated package.json; default: see DEFAULT_RUNGRAD_DEPENDENCY. */
  rungradDependency?: string;
  productProfile?: boolean;
  skill?: boolean;
  envPrefix?: string;
  productName?: string;
  description?: string;
  docsLabel?: string;
  services?: string[];
  metadataNamespace?: string;
  surface?: string;
  releaseOwner?: string;
  releaseRepo?: string;
  examples?: string[];
}

/** Examples per generated command, after appending the product's extras. */
export interface ExampleSets {
  root: string[];
  list: string[];
  create: string[];
  delete: string[];
  /** Extras appended (without de-duplication) after the update command's own three. */
  update: string[];
}

/** Validated options with every default filled in. */
export interface ScaffoldSettings {
  name: string;
  packageName: string;
  rungradDependency: string;
  product: boolean;
  skill: boolean;
  /** Credential env var (`<PREFIX>_TOKEN`). */
  envVar: string;
  productName: string;
  description: string;
  docsLabel: string;
  /** Empty without the product profile. */
  services: ServiceSetting[];
  /** Manifest extension namespace on `widget list` ("" without the product profile). */
  namespace: string;
  hostSurface: boolean;
  releaseOwner: string;
  releaseRepo: string;
  examples: ExampleSets;
}

/** Product-only fields in the order Generate reports them (the CLI's Changed gate has its own order). */
const PRODUCT_FIELDS: readonly [string, (o: ScaffoldOptions) => boolean][] = [
  ["env-prefix", (o) => !!o.envPrefix],
  ["product-name", (o) => !!o.productName],
  ["description", (o) => !!o.description],
  ["docs-label", (o) => !!o.docsLabel],
  ["service", (o) => (o.services ?? []).length > 0],
  ["metadata-namespace", (o) => !!o.metadataNamespace],
  ["surface", (o) => !!o.surface],
  ["release-owner", (o) => !!o.releaseOwner],
  ["release-repo", (o) => !!o.releaseRepo],
  ["example", (o) => (o.examples ?? []).length > 0],
  ["skill", (o) => o.skill === true],
];

const ENV_PREFIX_RE = /^[A-Z][A-Z0-9_]*$/;
const SLUG_RE = /^[a-z0-9][a-z0-9._-]*$/;
const SECRET_PREFIXES = ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "xox", "sk_", "pat_"];

/** Throws ScaffoldValidationError with the first failing rule; returns the settings otherwise. */
export function validateOptions(o: ScaffoldOptions): ScaffoldSettings {
  const name = o.name;
  if (name === "") throw invalid("name is required");
  if (!TOOL_NAME_RE.test(name)) throw invalid("name must start with a lowercase letter and contain only lowercase letters, digits, and hyphens");
  const packageName = o.package || name;
  if (!validNpmPackageName(packageName)) throw invalid("package name is invalid");
  // The default may be a `file:` path with spaces in it; a given spec is one token.
  const rungradDependency = o.rungradDependency || DEFAULT_RUNGRAD_DEPENDENCY.spec;
  if (o.rungradDependency && /[\s\x00-\x1f\x7f]/.test(rungradDependency)) throw invalid("rungrad dependency spec is invalid");
  const base = { name, packageName, rungradDependency };
  if (!(o.productProfile ?? false)) {
    for (const [flag, set] of PRODUCT_FIELDS) if (set(o)) throw invalid(`--${flag} requires --product-profile`);
    return compactSettings(base);
  }
  if (o.skill) checkAgentSkillName(name);
  return productSettings(o, base);
}

/** Spec §c: with --skill the tool name is also the skill name, so it must follow the Agent Skills rules. */
function checkAgentSkillName(name: string): void {
  try {
    checkSkillName(name);
  } catch {
    throw invalid("--skill requires a name of 1 to 64 lowercase letters, digits, or hyphens, with no leading, trailing, or consecutive hyphens");
  }
}

type Base = Pick<ScaffoldSettings, "name" | "packageName" | "rungradDependency">;

function defaultExamples(n: string): ExampleSets {
  return {
    root: [`${n} widget list`, `${n} widget list --json`, `${n} widget create gamma --dry-run`],
    list: [`${n} widget list`, `${n} widget list --json`],
    create: [`${n} widget create gamma`, `${n} widget create gamma --dry-run`],
    delete: [`${n} widget delete alpha --dry-run`, `${n} widget delete alpha --confirm`],
    update: [],
  };
}

function compactSettings(base: Base): ScaffoldSettings {
  const n = base.name;
  return {
    ...base,
    product: false,
    skill: false,
    envVar: n.replaceAll("-", "_").toUpperCase() + "_TOKEN",
    productName: `${n} CLI`,
    description: `${n} is a starter CLI built on the rungrad framework.`,
    docsLabel: `${n} CLI`,
    services: [],
    namespace: "",
    hostSurface: false,
    releaseOwner: "example",
    releaseRepo: n,
    examples: defaultExamples(n),
  };
}

/** The name upper-cased, other byte runs collapsed to `_`, trimmed. */
function deriveEnvPrefix(name: string): string {
  return name.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "");
}

function productSettings(o: ScaffoldOptions, base: Base): ScaffoldSettings {
  const n = base.name;
  const envPrefix = o.envPrefix || deriveEnvPrefix(n);
  if (!ENV_PREFIX_RE.test(envPrefix) || envPrefix.endsWith("_")) {
    throw invalid("env prefix must start with an uppercase letter, contain only uppercase letters, digits, and underscores, and not end with underscore");
  }
  const services = productServices(envPrefix, o.services ?? []);
  const namespace = o.metadataNamespace || `example.com/${n}`;
  try {
    validateExtensionSet({ [namespace]: { owner: "platform", status: "stable" } });
  } catch (err) {
    throw invalid(`metadata namespace is invalid: ${(err as Error).message}`);
  }
  const surface = o.surface || "rungrad";
  if (surface !== "rungrad" && surface !== "host") throw invalid("surface must be rungrad or host");
  const releaseOwner = releaseSlug("--release-owner", o.releaseOwner, "example");
  const releaseRepo = releaseSlug("--release-repo", o.releaseRepo, n);
  const productName = noControl("product name", o.productName || `${n} CLI`);
  const description = noControl("description", o.description || `${n} is a product CLI built on the rungrad framework.`);
  const docsLabel = noControl("docs label", o.docsLabel || productName);
  const examples = defaultExamples(n);
  const valueFlags = new Set(["config", "profile", "auth-file", ...services.map((s) => s.flag)]);
  for (const example of o.examples ?? []) {
    const target = validateExample(n, valueFlags, example);
    dedupAppend(examples.root, example);
    const key = target === "update" ? "update" : (target.slice("widget ".length) as "list" | "create" | "delete");
    dedupAppend(examples[key], example);
  }
  return {
    ...base,
    product: true,
    skill: o.skill ?? false,
    envVar: `${envPrefix}_TOKEN`,
    productName,
    description,
    docsLabel,
    services,
    namespace,
    hostSurface: surface === "host",
    releaseOwner,
    releaseRepo,
    examples,
  };
}

function releaseSlug(flag: string, explicit: string | undefined, fallback: string): string {
  const value = explicit || fallback;
  if (value.length > 100 || !SLUG_RE.test(value)) throw invalid(`${flag} must be a lowercase slug of 100 bytes or fewer`);
  if (explicit && SECRET_PREFIXES.some((p) => value.startsWith(p))) throw invalid(`${flag} looks like a credential, not a release placeholder`);
  return value;
}

function noControl(what: string, value: string): string {
  if (/[\x00-\x1f\x7f]/.test(value)) throw invalid(`${what} must not contain control characters`);
  return value;
}

function dedupAppend(list: string[], value: string): void {
  if (!list.includes(value)) list.push(value);
}
