// argv template tokens (hcp.md §6.2): literal, whole-token `{{name}}`, or flag value `--flag={{name}}`.

export const PLACEHOLDER_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export type ArgvToken =
  | { kind: "literal"; text: string }
  /** The whole token is `{{name}}`. */
  | { kind: "whole"; name: string }
  /** `--flag={{name}}` or `-f={{name}}`; `prefix` is the text before the placeholder, `=` included. */
  | { kind: "flag"; prefix: string; name: string }
  /** Something that looks like a placeholder but breaks the rules. */
  | { kind: "invalid"; reason: string };

const WHOLE = /^\{\{([^{}]*)\}\}$/;
const FLAG = /^(--[A-Za-z0-9][A-Za-z0-9_.-]*=|-[A-Za-z0-9]=)\{\{([^{}]*)\}\}$/;

/** Classifies one argv token. Pure; never throws. */
export function parseArgvToken(token: string): ArgvToken {
  if (!token.includes("{{") && !token.includes("}}")) return { kind: "literal", text: token };
  const whole = WHOLE.exec(token);
  if (whole) {
    const name = whole[1]!;
    if (!PLACEHOLDER_NAME.test(name)) return { kind: "invalid", reason: `placeholder name ${JSON.stringify(name)} must match ${PLACEHOLDER_NAME.source}` };
    return { kind: "whole", name };
  }
  const flag = FLAG.exec(token);
  if (flag) {
    const name = flag[2]!;
    if (!PLACEHOLDER_NAME.test(name)) return { kind: "invalid", reason: `placeholder name ${JSON.stringify(name)} must match ${PLACEHOLDER_NAME.source}` };
    return { kind: "flag", prefix: flag[1]!, name };
  }
  return {
    kind: "invalid",
    reason: `malformed placeholder in ${JSON.stringify(token)}: use a whole token {{name}} or --flag={{name}}`,
  };
}
