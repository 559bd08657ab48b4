// Errors of the manifest package. Messages are Go rungrad's exact texts.

import { goQuote } from "../json/goquote.js";

/** A manifest that is not valid rungrad-manifest/1 (or whose JSON does not decode). */
export class ManifestError extends Error {
  override name = "ManifestError";
}

/** The JSON text could not be decoded into a manifest (syntax, types, extension JSON rules). */
export class ManifestDecodeError extends ManifestError {
  override name = "ManifestDecodeError";
}

/** schema_version is present but not rungrad-manifest/1: a different class from "malformed". */
export class UnsupportedVersionError extends ManifestError {
  override name = "UnsupportedVersionError";
  constructor(readonly version: string) {
    super(`unsupported manifest schema version ${goQuote(version)}`);
  }
}

/** An extension set that breaks the namespace, reserved-name, core-field or value rules. */
export class ExtensionError extends ManifestError {
  override name = "ExtensionError";
}
