// checkSkillName: the Agent Skills name rules (1 to 64 of a-z, 0-9 and single inner hyphens).

import { goQuote } from "../json/goquote.js";
import { SkillNameError } from "./errors.js";

/** The longest name the Agent Skills format allows. */
export const SKILL_NAME_MAX_LENGTH = 64;

/**
 * Throws SkillNameError unless name is a valid Agent Skills name: 1 to 64
 * characters, only lowercase ASCII letters, digits and hyphens, no leading,
 * trailing or consecutive hyphens. Rules are checked in that order.
 */
export function checkSkillName(name: string): void {
  const quoted = goQuote(name);
  const length = [...name].length;
  if (length < 1 || length > SKILL_NAME_MAX_LENGTH) {
    throw new SkillNameError(name, "length", `skill name ${quoted} must be 1 to ${SKILL_NAME_MAX_LENGTH} characters long`);
  }
  if (!/^[a-z0-9-]+$/.test(name)) {
    throw new SkillNameError(name, "charset", `skill name ${quoted} must contain only lowercase letters, digits, and hyphens`);
  }
  if (name.startsWith("-") || name.endsWith("-")) {
    throw new SkillNameError(name, "edge-hyphen", `skill name ${quoted} must not start or end with a hyphen`);
  }
  if (name.includes("--")) {
    throw new SkillNameError(name, "consecutive-hyphens", `skill name ${quoted} must not contain consecutive hyphens`);
  }
}
