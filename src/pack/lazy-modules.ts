// The modules a run may not need, each required when first asked for: Ajv 2020-12 and ajv-formats, the Ajv class for
// plain schemas (ajv-plain.ts, loaded with this module), the interpreting validator (interpreted.ts), RE2 (re2js,
// linear-regexp.ts), the regular expression parser (@eslint-community/regexpp, pattern-syntax.ts) and the OpenAPI
// dereferencer (@readme/openapi-parser, runtime/openapi/document.ts). The programs' bundles replace this module
// (scripts/postbuild.mjs) by one that loads each from a bundle of its own with a V8 code cache (src/cli/launch.cjs)
// when first asked for.

import { createRequire } from "node:module";
import type Ajv2020Module from "ajv/dist/2020.js";
import type addFormatsModule from "ajv-formats";
import type { Validator } from "@cfworker/json-schema";
import type { RegExpParser } from "@eslint-community/regexpp";
import type { dereference } from "@readme/openapi-parser";
import type { RE2JS } from "re2js";
import { AjvPlain } from "./ajv-plain.js";

export interface AjvModules {
  readonly Ajv2020: typeof Ajv2020Module.default;
  readonly addFormats: typeof addFormatsModule.default;
}

/** The modules, each required when its property is first read (Ajv and ajv-formats are CommonJS with `exports.default`). */
export function ajvModules(): AjvModules {
  const require = createRequire(import.meta.url);
  return {
    get Ajv2020() {
      return (require("ajv/dist/2020.js") as typeof Ajv2020Module).default;
    },
    get addFormats() {
      return (require("ajv-formats") as typeof addFormatsModule).default;
    },
  };
}

/** The Ajv class for plain schemas without `format` (ajv-plain.ts). */
export function plainAjvClass(): typeof AjvPlain {
  return AjvPlain;
}

/** @cfworker/json-schema's Validator (interpreted.ts), required when first asked for. */
export function interpreterClass(): typeof Validator {
  return (createRequire(import.meta.url)("@cfworker/json-schema") as { Validator: typeof Validator }).Validator;
}

/** re2js's RE2JS (linear-regexp.ts), required when first asked for. */
export function re2Class(): typeof RE2JS {
  return (createRequire(import.meta.url)("re2js") as { RE2JS: typeof RE2JS }).RE2JS;
}

/** @eslint-community/regexpp's RegExpParser (pattern-syntax.ts), required when first asked for. */
export function regexpParserClass(): typeof RegExpParser {
  return (createRequire(import.meta.url)("@eslint-community/regexpp") as { RegExpParser: typeof RegExpParser }).RegExpParser;
}

/** @readme/openapi-parser's dereference (runtime/openapi/document.ts), required when first asked for. */
export function openApiDereference(): typeof dereference {
  return (createRequire(import.meta.url)("@readme/openapi-parser") as { dereference: typeof dereference }).dereference;
}
