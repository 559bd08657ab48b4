// Ajv for plain schemas without `format` (isPlainSchema in schema.ts): Ajv's core class with only the JSON Schema
// 2020-12 vocabularies such schemas use (core, validation, applicator, metadata), added in the order Ajv2020 adds
// them, so keywords are checked and their errors listed in the same order. Without dynamic references,
// unevaluated*, formats and the meta-schemas it is a smaller bundle of its own (scripts/postbuild.mjs), the one
// a one-shot `hcp run` with arguments loads.

import core from "ajv/dist/core.js";
import getApplicator from "ajv/dist/vocabularies/applicator/index.js";
import coreVocabulary from "ajv/dist/vocabularies/core/index.js";
import { metadataVocabulary } from "ajv/dist/vocabularies/metadata.js";
import validation from "ajv/dist/vocabularies/validation/index.js";

const VOCABULARIES = [coreVocabulary.default, validation.default, getApplicator.default(true), metadataVocabulary];

// oxlint-disable eslint/no-underscore-dangle -- Ajv's method, overridden as Ajv2020 overrides it
export class AjvPlain extends core.default {
  override _addVocabularies(): void {
    super._addVocabularies();
    for (const vocabulary of VOCABULARIES) this.addVocabulary(vocabulary);
  }
}
// oxlint-enable eslint/no-underscore-dangle
