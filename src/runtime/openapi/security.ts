// Credentials on a request (§9): each value applied as the document's securitySchemes say (http
// bearer or basic, apiKey in a header, the query or a cookie), and every form a value takes on the wire. Pure.

import { isObject } from "../../pack/issues.js";
import { CredentialError } from "../errors.js";
import type { DocumentHead } from "./document.js";
import type { Operation } from "./operations.js";
import { hasLoneSurrogate } from "./request.js";

export interface AppliedCredentials {
  readonly headers: Record<string, string>;
  readonly query: [string, string][];
  readonly cookies: string[];
  /** The values as sent (base64 of basic credentials, the password alone, a header's trimmed value): secrets too, masked in their URL forms as every secret is. */
  readonly wireForms: string[];
  /** The schemes the operation takes when none of its requirements had values (it went out with no credential). */
  unmet?: string[];
}

/** The schemes of the first security requirement whose schemes all have a value; none when no requirement is met. */
function chosenSchemes(op: Operation, schemes: Record<string, unknown>, values: Readonly<Record<string, string>>): string[] {
  for (const requirement of op.security) {
    const names = Object.keys(requirement);
    if (names.length === 0) return []; // `{}`: anonymous access is allowed
    if (names.every((n) => Object.hasOwn(values, n) && isObject(schemes[n]))) return names;
  }
  return [];
}

/**
 * A credential as a header value: refused when it holds a control character or a character outside Latin-1
 * (fetch would refuse it after the approval, quoting the character and where it stands); with spaces or tabs
 * around it, fetch sends it trimmed, and that trimmed form is masked too.
 */
function headerValue(scheme: string, value: string, applied: AppliedCredentials): string {
  if (/[\x01-\x08\x0b-\x1f\x7f]|[^\0-\xff]/.test(value)) {
    throw new CredentialError("credentials_invalid", `the credential for security scheme ${JSON.stringify(scheme)} cannot be sent in a header: it holds a control character or a character outside Latin-1`);
  }
  applied.wireForms.push(value.replace(/^[\t ]+|[\t ]+$/g, ""));
  return value;
}

/** Applies credential values (scheme name → value) to the operation's security requirement. */
export function applyCredentials(document: DocumentHead, op: Operation, values: Readonly<Record<string, string>>): AppliedCredentials {
  const applied: AppliedCredentials = { headers: {}, query: [], cookies: [], wireForms: [] };
  const schemes = isObject(document.securitySchemes) ? document.securitySchemes : {};
  const chosen = chosenSchemes(op, schemes, values);
  const takes = op.security.map((r) => Object.keys(r));
  if (chosen.length === 0 && takes.length > 0 && takes.every((names) => names.length > 0)) applied.unmet = [...new Set(takes.flat())];
  for (const name of chosen) {
    const scheme = schemes[name] as Record<string, unknown>;
    const value = values[name]!;
    if (/[\r\n\0]/.test(value)) throw new CredentialError("credentials_invalid", `the credential for security scheme ${JSON.stringify(name)} contains CR, LF or NUL`);
    if (hasLoneSurrogate(value)) throw new CredentialError("credentials_invalid", `the credential for security scheme ${JSON.stringify(name)} is not valid Unicode text (a lone UTF-16 surrogate)`);
    const type = scheme["type"];
    const httpScheme = typeof scheme["scheme"] === "string" ? scheme["scheme"].toLowerCase() : "";
    if (type === "http" && httpScheme === "basic") {
      const encoded = Buffer.from(value, "utf8").toString("base64");
      applied.headers["authorization"] = `Basic ${encoded}`;
      // The password alone is the secret a server is likeliest to quote back.
      const colon = value.indexOf(":");
      applied.wireForms.push(value, encoded, colon < 0 ? "" : value.slice(colon + 1));
    } else if ((type === "http" && httpScheme === "bearer") || type === "oauth2" || type === "openIdConnect") {
      applied.headers["authorization"] = `Bearer ${headerValue(name, value, applied)}`;
    } else if (type === "apiKey" && typeof scheme["name"] === "string") {
      const key = scheme["name"];
      if (scheme["in"] === "header") applied.headers[key.toLowerCase()] = headerValue(name, value, applied);
      else if (scheme["in"] === "query") {
        applied.query.push([key, value]);
        applied.wireForms.push(value);
      } else if (scheme["in"] === "cookie") {
        applied.cookies.push(`${key}=${encodeURIComponent(value)}`);
        applied.wireForms.push(value);
      }
    }
  }
  return applied;
}

/**
 * Where the operation's security schemes put a credential, as `query:name`, `header:name` and `cookie:name` (in lower
 * case: servers read some of each in any case), each to its scheme's name: an argument sent there would be shown in the
 * plan a person approves and then replaced by the credential (or stand beside it), so none may be.
 */
export function credentialPlaces(document: DocumentHead, op: Operation): ReadonlyMap<string, string> {
  const schemes = isObject(document.securitySchemes) ? document.securitySchemes : {};
  const places = new Map<string, string>();
  for (const name of op.security.flatMap((r) => Object.keys(r))) {
    const scheme = schemes[name];
    if (!isObject(scheme) || scheme["type"] !== "apiKey" || typeof scheme["name"] !== "string") continue;
    const where = scheme["in"];
    if (where === "query" || where === "header" || where === "cookie") places.set(`${where}:${scheme["name"].toLowerCase()}`, name);
  }
  return places;
}
