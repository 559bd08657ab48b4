// Product service endpoints: the default api service, `--service name=url` merging, and the URL rule (https, under .invalid, no userinfo).

import { GLOBAL_USAGE } from "../framework/flags.js";
import { invalid } from "./errors.js";

/** One generated service: flag, env var, config key, default URL and usage all derive from the name. */
export interface ServiceSetting {
  name: string;
  flag: string;
  envVar: string;
  configKey: string;
  default: string;
  usage: string;
}

export const TOOL_NAME_RE = /^[a-z][a-z0-9-]*$/;

function serviceSetting(envPrefix: string, name: string, url: string): ServiceSetting {
  const snake = name.replaceAll("-", "_");
  return {
    name,
    flag: `${name}-url`,
    envVar: `${envPrefix}_${snake.toUpperCase()}_URL`,
    configKey: `${snake}_url`,
    default: url,
    usage: `Base URL for the ${name} service`,
  };
}

/** `api` first; explicit specs in order, `api` replacing the default in place; explicit names unique. */
export function productServices(envPrefix: string, specs: readonly string[]): ServiceSetting[] {
  const services = [serviceSetting(envPrefix, "api", "https://api.example.invalid")];
  const explicit = new Set<string>();
  for (const raw of specs) {
    const eq = raw.indexOf("=");
    const name = eq < 0 ? "" : raw.slice(0, eq);
    const url = eq < 0 ? "" : raw.slice(eq + 1);
    if (name === "" || url === "") throw invalid("service must be name=url");
    if (!TOOL_NAME_RE.test(name)) throw invalid("service name must start with a lowercase letter and contain only lowercase letters, digits, and hyphens");
    // A `<service>-url` flag must not take the name of one of the framework's global flags.
    if (Object.hasOwn(GLOBAL_USAGE, `${name}-url`)) throw invalid("service flag collides with a rungrad global flag");
    if (explicit.has(name)) throw invalid("service names must be unique");
    explicit.add(name);
    checkServiceURL(url);
    const svc = serviceSetting(envPrefix, name, url);
    const at = services.findIndex((s) => s.name === name);
    if (at >= 0) services[at] = svc;
    else services.push(svc);
  }
  return services;
}

/**
 * Go's url.Parse then the product rule. Parse failures (control bytes, a missing scheme, a bad
 * port or escape, characters Go rejects in a host) → `service URL is invalid`; a URL that parses
 * but is not https, has userinfo, no host, or a host (case-sensitive) not ending in `.invalid` → the rule's text.
 */
function checkServiceURL(raw: string): void {
  const parseError = invalid("service URL is invalid");
  const ruleError = invalid("service URL must be an https URL under .invalid with no userinfo");
  if (/[\x00-\x1f\x7f]/.test(raw) || raw.startsWith(":") || /%(?![0-9A-Fa-f]{2})/.test(raw)) throw parseError;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(raw);
  if (!scheme || scheme[1]!.toLowerCase() !== "https") throw ruleError;
  const rest = raw.slice(scheme[0].length);
  if (!rest.startsWith("//")) throw ruleError;
  const authority = /^[^/?#]*/.exec(rest.slice(2))![0];
  const at = authority.lastIndexOf("@");
  const hostport = authority.slice(at + 1);
  const bracketed = /^\[[^\]]*\](?::([^:]*))?$/.exec(hostport);
  const colon = hostport.lastIndexOf(":");
  const host = bracketed ? hostport.slice(1, hostport.indexOf("]")) : colon >= 0 ? hostport.slice(0, colon) : hostport;
  const port = bracketed ? (bracketed[1] ?? "") : colon >= 0 ? hostport.slice(colon + 1) : "";
  if (!/^[0-9]*$/.test(port) || !/^[A-Za-z0-9\-._~!$&'()*+,;=%:<>"]*$/.test(host)) throw parseError;
  if (at >= 0 || hostport === "" || !host.endsWith(".invalid")) throw ruleError;
}
