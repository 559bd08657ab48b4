// argv template tokens (hcp.md §6.2): literal, whole-token `{{name}}`, or flag value `--flag={{name}}`.

export const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Names an args object cannot carry as its own data in JavaScript: refused so that every valid verb can run. */
const RESERVED_NAMES: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export type ArgvToken =
  | { kind: "literal"; text: string }
  /** The whole token is `{{name}}`. */
  | { kind: "whole"; name: string }
  /** `--flag={{name}}` or `-f={{name}}`; `prefix` is the text before the placeholder, `=` included. */
  | { kind: "flag"; prefix: string; name: string }
  /** Something that looks like a placeholder but breaks the rules. */
  | { kind: "invalid"; reason: string };

/** True for a name a placeholder may have (§6.2). */
export function isPlaceholderName(name: string): boolean {
  return nameProblem(name) === undefined;
}

/** Why a placeholder name is not allowed, or undefined when it is. */
function nameProblem(name: string): string | undefined {
  if (!PLACEHOLDER_NAME.test(name)) return `placeholder name ${JSON.stringify(name)} must match ${PLACEHOLDER_NAME.source}`;
  if (RESERVED_NAMES.has(name)) return `placeholder name ${JSON.stringify(name)} is reserved (__proto__, constructor and prototype are not allowed)`;
  return undefined;
}

const WHOLE = /^\{\{([^{}]*)\}\}$/;
const FLAG = /^(--[A-Za-z0-9][A-Za-z0-9_.-]*=|-[A-Za-z0-9]=)\{\{([^{}]*)\}\}$/;

/** Classifies one argv token. Pure; never throws. */
export function parseArgvToken(token: string): ArgvToken {
  if (!token.includes("{{") && !token.includes("}}")) return { kind: "literal", text: token };
  const whole = WHOLE.exec(token);
  if (whole) {
    const name = whole[1]!;
    const problem = nameProblem(name);
    return problem === undefined ? { kind: "whole", name } : { kind: "invalid", reason: problem };
  }
  const flag = FLAG.exec(token);
  if (flag) {
    const name = flag[2]!;
    const problem = nameProblem(name);
    return problem === undefined ? { kind: "flag", prefix: flag[1]!, name } : { kind: "invalid", reason: problem };
  }
  return {
    kind: "invalid",
    reason: `malformed placeholder in ${JSON.stringify(token)}: use a whole token {{name}} or --flag={{name}}`,
  };
}
