// The scaffold's entry point for `rungrad new`: the project generator for TypeScript CLIs on the rungrad framework.

export { ScaffoldValidationError } from "./errors.js";
export { generate } from "./generate.js";
export { validateOptions, type ScaffoldOptions } from "./options.js";
export { projectRoot, writeProject } from "./write.js";
