// Public API of the scaffold: `rungrad new`'s project generator for TypeScript CLIs on the rungrad framework.

export { ScaffoldExistsError, ScaffoldGeneratorError, ScaffoldValidationError } from "./errors.js";
export { generate, type Project, type ProjectFile } from "./generate.js";
export { inMemoryApp, scaffoldManifest } from "./manifest.js";
export { validateOptions, type ExampleSets, type ScaffoldOptions, type ScaffoldSettings } from "./options.js";
export { GENERATED_VERSION, programDecl, type CommandDecl, type ProgramDecl } from "./program.js";
export type { ServiceSetting } from "./services.js";
export { DEFAULT_RUNGRAD_DEPENDENCY } from "./toolchain.js";
export { projectRoot, writeProject } from "./write.js";
