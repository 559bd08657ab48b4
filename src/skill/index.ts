// Public API of the skill renderer: repository-scoped agent files from an agent metadata document.

export { SkillError, SkillNameError, SkillRenderError, type SkillNameRule } from "./errors.js";
export { checkSkillName, SKILL_NAME_MAX_LENGTH } from "./name.js";
export { renderSkill, type AgentFile, type RenderSkillOptions } from "./render.js";
export { SUMMARY_MAX_LENGTH } from "./text.js";
