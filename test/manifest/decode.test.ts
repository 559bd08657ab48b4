// parseManifest = Go's json.Unmarshal into manifest.Manifest: field order, nulls, case folding, duplicates, error texts.

import { test } from "node:test";
import assert from "node:assert/strict";
import { parseManifest } from "../../src/manifest/decode.js";
import { ManifestDecodeError } from "../../src/manifest/errors.js";
import { stableJSON } from "../../src/json/stable.js";

function decodeError(text: string): string {
  try {
    parseManifest(text);
  } catch (err) {
    assert.ok(err instanceof ManifestDecodeError, String(err));
    assert.ok(err.message.length > 0);
    return err.message;
  }
  assert.fail(`expected a decode error for ${text}`);
}

const ROOT = '{"path":[],"examples":[],"related":[],"output_modes":[],"local_flags":[]}';

test("canonical form: wire order, unknown keys dropped, literals kept, extensions omitted when absent or empty", () => {
  const text = `{"commands":[{"zzz":1,"local_flags":[{"required":true,"name":"n","x":[]}],"path":["a"],"use":"a",
    "extensions":{"b.com/x":{"n":9007199254740993,"f":1.50,"e":1E5,"o":{}},"a.com/x":{}}},${ROOT},{"path":["b"],"extensions":{}}],
    "tool_name":"t","schema_version":"rungrad-manifest/1","extra":{"deep":[1,{"a":null}]}}`;
  assert.equal(
    stableJSON(parseManifest(text)),
    `{
  "schema_version": "rungrad-manifest/1",
  "spec_version": "",
  "tool_name": "t",
  "tool_version": "",
  "global_flags": null,
  "commands": [
    {
      "path": [
        "a"
      ],
      "use": "a",
      "short": "",
      "examples": null,
      "related": null,
      "output_modes": null,
      "requires_auth": false,
      "mutates": false,
      "supports_dry_run": false,
      "destructive": false,
      "requires_confirmation": false,
      "supports_meta": false,
      "local_flags": [
        {
          "name": "n",
          "shorthand": "",
          "usage": "",
          "default": "",
          "type": "",
          "required": true
        }
      ],
      "extensions": {
        "a.com/x": {},
        "b.com/x": {
          "e": 1E5,
          "f": 1.50,
          "n": 9007199254740993,
          "o": {}
        }
      }
    },
    {
      "path": [],
      "use": "",
      "short": "",
      "examples": [],
      "related": [],
      "output_modes": [],
      "requires_auth": false,
      "mutates": false,
      "supports_dry_run": false,
      "destructive": false,
      "requires_confirmation": false,
      "supports_meta": false,
      "local_flags": []
    },
    {
      "path": [
        "b"
      ],
      "use": "",
      "short": "",
      "examples": null,
      "related": null,
      "output_modes": null,
      "requires_auth": false,
      "mutates": false,
      "supports_dry_run": false,
      "destructive": false,
      "requires_confirmation": false,
      "supports_meta": false,
      "local_flags": null
    }
  ]
}
`,
  );
  assert.ok(!("extensions" in parseManifest(text).commands![2]!));
});

test("null: no effect on strings and bools, nil for slices; top-level null is an empty manifest", () => {
  const m = parseManifest('{"tool_name":"a","tool_name":null,"commands":[null,{"mutates":true,"mutates":null,"path":["x"],"path":null}]}');
  assert.equal(m.tool_name, "a");
  assert.equal(m.commands![0]!.path, null);
  assert.equal(m.commands![1]!.mutates, true);
  assert.equal(m.commands![1]!.path, null);
  assert.deepEqual(parseManifest(" null "), parseManifest("{}"));
  assert.equal(parseManifest("{}").commands, null);
});

test("keys match exactly first, then case-insensitively as Go folds them; the last duplicate wins", () => {
  const m = parseManifest('{"TOOL_NAME":"a","Tool_Name":"b","\u017fchema_version":"s","tool_\u212aame":"no","Commands":[],"commands":null}');
  assert.equal(m.tool_name, "b");
  assert.equal(m.schema_version, "s");
  assert.equal(m.commands, null);
  assert.equal(parseManifest('{"tool_name":"a","TOOL_NAME":"b"}').tool_name, "b");
});

test("dotted and dotless i fold to nothing (Go folds only SimpleFold orbits: \u017f is S, the Kelvin sign is K)", () => {
  const m = parseManifest('{"spec_vers\u0130on":"x","tool_name":"t","global_flags":[{"name":"n","requ\u0131red":true,"\u017fhorthand":"s"}]}');
  assert.equal(m.spec_version, "");
  assert.deepEqual(m.global_flags![0], { name: "n", shorthand: "s", usage: "", default: "", type: "", required: false });
  assert.equal(parseManifest('{"tool_na\u0131e":"a"}').tool_name, "");
  assert.equal(parseManifest('{"\u212aind":"a","tool_name":"t"}').tool_name, "t");
});

test("a repeated array of structs decodes into the earlier elements, as Go reuses the slice", () => {
  const m = parseManifest('{"commands":[{"use":"a","path":["p","q"]},{"use":"b"}],"commands":[{"short":"s","path":["z"]}],"commands":[{},{}]}');
  assert.equal(m.commands!.length, 2);
  assert.deepEqual([m.commands![0]!.use, m.commands![0]!.short, m.commands![0]!.path], ["a", "s", ["z"]]);
  assert.equal(m.commands![1]!.use, "b");
  assert.deepEqual(parseManifest('{"commands":[{"use":"a"}],"commands":[],"commands":[{}]}').commands![0]!.use, "");
});

test("type mismatches: Go's UnmarshalTypeError text, the first one wins, decoding goes on", () => {
  const cases: [string, string][] = [
    ["[]", "json: cannot unmarshal array into Go value of type manifest.Manifest"],
    ['"x"', "json: cannot unmarshal string into Go value of type manifest.Manifest"],
    ["1", "json: cannot unmarshal number into Go value of type manifest.Manifest"],
    ["true", "json: cannot unmarshal bool into Go value of type manifest.Manifest"],
    ['{"tool_name":1}', "json: cannot unmarshal number into Go struct field Manifest.tool_name of type string"],
    ['{"commands":{}}', "json: cannot unmarshal object into Go struct field Manifest.commands of type []manifest.Command"],
    ['{"commands":[[]]}', "json: cannot unmarshal array into Go struct field Manifest.commands of type manifest.Command"],
    ['{"global_flags":["x"]}', "json: cannot unmarshal string into Go struct field Manifest.global_flags of type manifest.Flag"],
    ['{"commands":[{"path":"a"}]}', "json: cannot unmarshal string into Go struct field Command.commands.path of type []string"],
    ['{"commands":[{"path":[true]}]}', "json: cannot unmarshal bool into Go struct field Command.commands.path of type string"],
    ['{"commands":[{"mutates":"yes"}]}', "json: cannot unmarshal string into Go struct field Command.commands.mutates of type bool"],
    ['{"commands":[{"local_flags":[{"name":{}}]}]}', "json: cannot unmarshal object into Go struct field Flag.commands.local_flags.name of type string"],
    ['{"global_flags":[{"required":0}]}', "json: cannot unmarshal number into Go struct field Flag.global_flags.required of type bool"],
    ['{"tool_name":1,"spec_version":true}', "json: cannot unmarshal number into Go struct field Manifest.tool_name of type string"],
  ];
  for (const [text, message] of cases) assert.equal(decodeError(text), message, text);
});

const cmd = (ext: string) => `{"commands":[${ROOT.slice(0, -1)},"extensions":${ext}}]}`;

test("extensions: decoded with duplicate rejection; failures abort; null is not an object", () => {
  assert.equal(decodeError(cmd("null")), "extensions must be a JSON object");
  assert.equal(decodeError(cmd("[]")), "extensions must be a JSON object");
  assert.equal(decodeError(cmd('{"a/b":1}')), 'extension namespace "a/b": non-object namespace value');
  assert.equal(decodeError(cmd('{"a/b":null}')), 'extension namespace "a/b": null value');
  assert.equal(decodeError(cmd('{"a/b":{"k":[{"x":1,"x":2}]}}')), 'extensions: duplicate key "a/b.k[0].x"');
  // Full validation is left to validateManifest.
  assert.equal(Object.keys(parseManifest(cmd('{"Bad":{"path":null}}')).commands![0]!.extensions!).length, 1);
  // An extension failure aborts, so it replaces an earlier type error ...
  assert.equal(decodeError(`{"tool_name":1,${cmd("null").slice(1)}`), "extensions must be a JSON object");
  // ... but a syntax error anywhere in the text is found first.
  assert.equal(decodeError(`${cmd("null").slice(0, -1)},"x":}`), "invalid character '}' looking for beginning of value");
});

test("syntax errors win over type errors and carry json.Unmarshal's texts", () => {
  assert.equal(decodeError('{"tool_name":1,"x":tru}'), "invalid character '}' in literal true (expecting 'e')");
  assert.equal(decodeError('{"commands":['), "unexpected end of JSON input");
  assert.equal(decodeError("{} x"), "invalid character 'x' after top-level value");
});
