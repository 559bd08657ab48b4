// The rungrad framework: App, command declarations, handler context, typed errors and output helpers.

export { App, type AppConfig } from "./app.js";
export { OutputMode, type ArgsRule, type CommandSpec, type Handler } from "./command.js";
export { Context, isNumericID, type GlobalState, type Lookup, type Output, type ResolveOptions, type RunIO } from "./context.js";
export { mask, toolEnvVar, type ResolutionConfig, type Service } from "./config.js";
export {
  AmbiguousError, classifyExit, ConfigError, DetailedError, ExitCode, FlagParseError, MissingCredentialError, NotFoundError, RungradError,
  SurfaceError, UnknownCommandError, UsageError, type Match,
} from "./errors.js";
export type { FlagSpec, FlagType } from "./flags.js";
export type { Group } from "./help.js";
export { tableText, mutationText, previewText, previewJSON, type DryRunPreview, type Field, type Meta, type MutationSummary } from "./output.js";
export type { GlobalFlagBinding, GlobalFlagBindings, ManifestRenderContext, SurfaceConfig } from "./surface.js";
export { updateCommand, evaluateUpdate, type UpdateConfig, type Release, type UpdateResult } from "./update.js";
