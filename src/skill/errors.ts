// Errors of the skill renderer: a tool name that breaks the Agent Skills rules, or text that cannot be rendered safely.

/** Base class of every error renderSkill and checkSkillName throw. */
export class SkillError extends Error {
  override name = "SkillError";
}

/** Which Agent Skills name rule a name breaks. */
export type SkillNameRule = "length" | "charset" | "edge-hyphen" | "consecutive-hyphens";

/** A tool name that is not a valid Agent Skills name (it is both the skill directory and the frontmatter name). */
export class SkillNameError extends SkillError {
  override name = "SkillNameError";
  constructor(
    readonly skillName: string,
    readonly rule: SkillNameRule,
    message: string,
  ) {
    super(message);
  }
}

/** Command text from the document that would break the Markdown of SKILL.md (backticks, backslashes, control or format characters). */
export class SkillRenderError extends SkillError {
  override name = "SkillRenderError";
}
