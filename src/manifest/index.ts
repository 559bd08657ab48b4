// The manifest package: the rungrad-manifest/1 wire schema, its decoder, validation, and extensions.
export * from "./types.js";
export * from "./errors.js";
export { parseManifest } from "./decode.js";
export { validateManifest, pathLabel } from "./validate.js";
export {
  validateExtensionSet,
  decodeExtensions,
  encodeExtensions,
  cloneExtensionSet,
  requireExtensionFields,
  requireExtensionEnum,
  requireExtensionDocPath,
} from "./extensions.js";
