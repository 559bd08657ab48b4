// HCP/1.1 harness packs: load, validate, derive meta, effective policy, and generate from agentmeta.

export * from "./types.js";
export { formatIssue, hasErrors } from "./issues.js";
export { PLACEHOLDER_NAME, parseArgvToken, type ArgvToken } from "./placeholders.js";
export { PACK_ID, VERB_KEY, isPackId, isVerbKey } from "./fields.js";
export { MESSAGES, parseSurface, validateSurface, type SurfaceResult, type ValidateContext } from "./surface.js";
export { META_KEYS, deriveMeta } from "./meta.js";
export { effectivePolicy, parsePolicy, passThroughPolicy, validatePolicy, type PolicyResult } from "./policy.js";
export { parseHarness, splitFrontmatter, type HarnessResult } from "./harness.js";
export { checkSchema, compileSchema, getAjv, type CompiledSchema } from "./schema.js";
export { loadPack, loadPacks } from "./load.js";
export {
  packFromAgentMeta,
  packIdOf,
  placeholderName,
  type FromAgentMetaOptions,
  type GeneratedPack,
  type SurfaceDocument,
} from "./from-agentmeta.js";
