// Profile/config/auth-file/service resolution and credential loading (env var → credentials.json → missing).

import { existsSync, readFileSync } from "node:fs";
import { homeFolder } from "../home-folder.js";
import { dirname, join } from "node:path";
import { ConfigError, MissingCredentialError } from "./errors.js";
import { goQuote } from "../json/goquote.js";

/** A product service endpoint with its own flag, env var and config key. */
export interface Service {
  name: string;
  flag?: string;
  envVar?: string;
  configKey?: string;
  default?: string;
  usage?: string;
}

/** Opt-in runtime resolution: --profile, --auth-file and one flag per service. */
export interface ResolutionConfig {
  profile?: boolean;
  authFile?: boolean;
  services?: Service[];
}

export interface ResolvedService {
  value: string;
  source: "flag" | "env" | "profile" | "config" | "default";
}

export interface Resolved {
  profile: string;
  configPath: string;
  authFilePath: string;
  services: Record<string, ResolvedService>;
}

/** The non-secret config file (config.yaml). */
interface ConfigFile {
  current_profile?: string;
  profiles?: Record<string, { services?: Record<string, string> }>;
  services?: Record<string, string>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** `<TOOL>_<SUFFIX>`: the name upper-cased, other bytes collapsed to `_`. */
export function toolEnvVar(name: string, suffix: string): string {
  const base = name.toUpperCase().replace(/[^A-Z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  return base && suffix ? `${base}_${suffix}` : base;
}

/** Go's os.UserConfigDir. */
function userConfigDir(env: Env): string {
  if (process.platform === "win32") return env["APPDATA"] ?? "";
  if (process.platform === "darwin") return join(env["HOME"] || homeFolder(), "Library", "Application Support");
  return env["XDG_CONFIG_HOME"] || join(env["HOME"] || homeFolder(), ".config");
}

/** Default config path `<UserConfigDir>/<tool>/config.yaml`. */
export function defaultConfigPath(tool: string, env: Env): string {
  return join(userConfigDir(env), tool, "config.yaml");
}

/** Reads config.yaml; absent or empty is an empty config. YAML is loaded only when a file exists. */
async function loadConfigFile(path: string): Promise<ConfigFile> {
  if (!existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`malformed config ${path}: ${(err as Error).message}`);
  }
  if (text.trim() === "") return {};
  const { parse } = await import("yaml");
  try {
    const v: unknown = parse(text);
    return v && typeof v === "object" ? (v as ConfigFile) : {};
  } catch (err) {
    throw new ConfigError(`malformed config ${path}: ${(err as Error).message}`);
  }
}

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export interface ResolveInput {
  tool: string;
  env: Env;
  resolution: ResolutionConfig;
  defaultProfile: string;
  flags: { config: string; profile: string; authFile: string; services: Record<string, string | undefined> };
}

/** Precedence: flag > env > config file > app default, for profile, config path, auth file and each service. */
export async function resolveRuntime(input: ResolveInput): Promise<Resolved> {
  const { tool, env, flags } = input;
  const configPath = flags.config || env[toolEnvVar(tool, "CONFIG")] || defaultConfigPath(tool, env);
  const cfg = await loadConfigFile(configPath);
  const profile = flags.profile || env[toolEnvVar(tool, "PROFILE")] || cfg.current_profile || input.defaultProfile || "default";
  // Profile names become keys and path parts: Go's config package accepts only this shape.
  if (!PROFILE_NAME.test(profile)) throw new ConfigError(`invalid profile name ${goQuote(profile)}`);
  const authFilePath = flags.authFile || env[toolEnvVar(tool, "AUTH_FILE")] || join(dirname(configPath), "credentials.json");
  const services: Record<string, ResolvedService> = {};
  for (const s of input.resolution.services ?? []) {
    const key = s.configKey || s.name;
    const fromFlag = flags.services[s.name];
    const fromEnv = s.envVar ? env[s.envVar] : undefined;
    const fromProfile = cfg.profiles?.[profile]?.services?.[key];
    const fromConfig = cfg.services?.[key];
    services[s.name] =
      fromFlag !== undefined ? { value: fromFlag, source: "flag" }
      : fromEnv ? { value: fromEnv, source: "env" }
      : fromProfile ? { value: fromProfile, source: "profile" }
      : fromConfig ? { value: fromConfig, source: "config" }
      : { value: s.default ?? "", source: "default" };
  }
  return { profile, configPath, authFilePath, services };
}

/** A resolved credential and where it came from. */
export interface Credential {
  token: string;
  source: "env" | "file";
}

/** Env var (non-empty) → the profile's entry in the credentials file → MissingCredentialError. */
export function loadCredential(envVar: string | undefined, env: Env, credentialsPath: string, profile: string): Credential {
  const fromEnv = envVar ? env[envVar] : undefined;
  if (fromEnv) return { token: fromEnv, source: "env" };
  if (!existsSync(credentialsPath)) throw new MissingCredentialError();
  let text: string;
  try {
    text = readFileSync(credentialsPath, "utf8");
  } catch {
    throw new ConfigError(`malformed config ${credentialsPath}: read credentials`);
  }
  let parsed: { entries?: Record<string, { token?: string }> };
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    // The message never includes file content: it may hold a secret.
    throw new ConfigError(`malformed config ${credentialsPath}: malformed credentials`);
  }
  const token = parsed?.entries?.[profile || "default"]?.token;
  if (!token) throw new MissingCredentialError();
  return { token, source: "file" };
}

/** `****` plus the last four characters (`****` when four or fewer). */
export function mask(secret: string): string {
  return secret.length <= 4 ? "****" : "****" + secret.slice(-4);
}
