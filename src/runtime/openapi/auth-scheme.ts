// `hcp init --auth`: a security scheme added to the pack's copy of a document that declares none (GitHub's takes a
// token, yet declares no scheme), so that its verbs send a stored credential as §9 applies any document's. Pure.

import { isObject } from "../../pack/issues.js";
import { looksLikeJson, withoutBom } from "./document.js";

/** What `--auth` asks for: an http scheme, or an API key in a header or the query. */
export interface AuthChoice {
  /** The scheme's name in the document, and the credential's name (`hcp credentials set FAMILY NAME --scheme`). */
  readonly name: string;
  readonly scheme: Readonly<Record<string, string>>;
  /** How a person would say it: `http bearer`, `an API key in header X-API-Key`. */
  readonly said: string;
}

/** The forms --auth takes, for messages. */
export const AUTH_FORMS = "bearer, basic, header:NAME or query:NAME";

/** A header or query parameter name: an HTTP token (RFC 9110), as a server would name it. */
const PARAMETER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,256}$/;

/** `--auth`'s value as a scheme; undefined when it is none of its forms. */
export function authChoice(text: string): AuthChoice | undefined {
  if (text === "bearer") return { name: "bearerAuth", scheme: { type: "http", scheme: "bearer" }, said: "http bearer" };
  if (text === "basic") return { name: "basicAuth", scheme: { type: "http", scheme: "basic" }, said: "http basic" };
  const apiKey = /^(header|query):(.*)$/.exec(text);
  if (apiKey === null || !PARAMETER_NAME.test(apiKey[2]!)) return undefined;
  const [, where, name] = apiKey as unknown as [string, "header" | "query", string];
  return { name: "apiKey", scheme: { type: "apiKey", in: where, name }, said: `an API key in ${where === "header" ? "header" : "query parameter"} ${name}` };
}

/** Why a document cannot take an added scheme: it has security of its own, which hcp applies as it is. */
export function ownSecurity(value: unknown): string | undefined {
  const doc = isObject(value) ? value : {};
  const components = isObject(doc["components"]) ? doc["components"] : {};
  const declared = isObject(components["securitySchemes"]) ? Object.keys(components["securitySchemes"]) : [];
  if (declared.length > 0) return `declares security schemes (${declared.join(", ")}), which hcp init uses as they are: store their values with hcp credentials set FAMILY NAME --scheme`;
  if (doc["security"] !== undefined) return "has a top-level security requirement of its own";
  return undefined;
}

/**
 * The document's text with the scheme declared in components.securitySchemes and required at the top level (an
 * operation with a `security` of its own keeps it); or why not (`refused`): it has security of its own. JSON is written
 * back with the text's own indentation, so a document written by a JSON printer changes by those lines only; YAML
 * keeps its comments and layout. The text must parse (it was read as a document).
 */
export async function withAuthScheme(text: string, choice: AuthChoice): Promise<{ text: string } | { refused: string }> {
  const requirement = [{ [choice.name]: [] }];
  const source = withoutBom(text);
  if (looksLikeJson(source)) {
    const value = JSON.parse(source) as Record<string, unknown>;
    const refused = ownSecurity(value);
    if (refused !== undefined) return { refused };
    const components = isObject(value["components"]) ? value["components"] : {};
    value["components"] = { ...components, securitySchemes: { [choice.name]: choice.scheme } };
    value["security"] = requirement;
    const indent = /^\{\r?\n([ \t]+)/.exec(source)?.[1] ?? "";
    return { text: JSON.stringify(value, null, indent) + (source.endsWith("\n") ? "\n" : "") };
  }
  const yaml = await import("yaml");
  const doc = yaml.parseDocument(text, { uniqueKeys: true });
  const refused = ownSecurity(doc.toJS({ maxAliasCount: 100 }));
  if (refused !== undefined) return { refused };
  doc.setIn(["components", "securitySchemes", choice.name], doc.createNode(choice.scheme));
  doc.set("security", doc.createNode(requirement));
  return { text: doc.toString() };
}
