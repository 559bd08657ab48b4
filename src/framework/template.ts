// --template: the part of Go's text/template that a JSON value can meet, with Go's error texts.
//
// Go rungrad parses the flag with template.New("output").Option("missingkey=error") and runs it
// over the --json bytes decoded with UseNumber: maps, []any, json.Number, strings, bools, nil.
// This module lexes, parses and executes the same language over the same values (see README.md,
// "--template language", for what is left out): actions, pipelines, parenthesised pipelines with
// fields (`{{(index . 0).label}}`), variables, if/else if/with/range/break/continue, comments, trim
// markers, and the functions and or not len index eq ne lt le gt ge print printf println html js
// urlquery. Errors read as Go's: `template: output:1: unexpected EOF` when parsing and
// `template: output:1:2: executing "output" at <.nope>: map has no entry for key "nope"` when running.

import { goQuote } from "../json/goquote.js";
import { compareBytes, JsonNumber } from "../json/stable.js";

const NAME = "output";

/** A parse failure (Go's text: `template: output:<line>: <what>`). */
export class TemplateParseError extends Error {}
/** A failure while executing (Go's ExecError text). */
export class TemplateExecError extends Error {}

// ---------------------------------------------------------------------------------------------
// Lexer

type TokenType =
  | "error" | "eof" | "text" | "leftDelim" | "rightDelim" | "space" | "field" | "identifier" | "dot" | "variable"
  | "string" | "rawString" | "number" | "charConstant" | "bool" | "nil" | "leftParen" | "rightParen" | "pipe"
  | "declare" | "assign" | "char" | "keyword";

interface Token {
  typ: TokenType;
  val: string;
  pos: number;
  line: number;
}

const KEYWORDS = new Set(["block", "break", "continue", "define", "else", "end", "if", "range", "template", "with"]);
const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";
const isAlphaNumeric = (c: string | undefined) => c !== undefined && (c === "_" || /^[\p{L}\p{Nd}]$/u.test(c));

/** Go's %#U of a character: `U+0021 '!'`. */
function unicodeVerb(c: string): string {
  const cp = c.codePointAt(0)!;
  const hex = cp.toString(16).toUpperCase().padStart(4, "0");
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u.test(c) ? `U+${hex} '${c}'` : `U+${hex}`;
}

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  let line = 1;
  const lineAt = (p: number) => line + countNewlines(input, pos, p);
  const emit = (typ: TokenType, start: number, end: number, startLine = lineAt(start)) => {
    tokens.push({ typ, val: input.slice(start, end), pos: start, line: startLine });
  };
  const fail = (message: string, at: number) => {
    tokens.push({ typ: "error", val: message, pos: at, line: lineAt(at) });
  };
  const advance = (to: number) => {
    line += countNewlines(input, pos, to);
    pos = to;
  };
  for (;;) {
    // Text up to the next action.
    const open = input.indexOf("{{", pos);
    const textEnd = open < 0 ? input.length : open;
    let trimmedEnd = textEnd;
    const leftTrim = open >= 0 && input[open + 2] === "-" && isSpace(input[open + 3]);
    if (leftTrim) while (trimmedEnd > pos && isSpace(input[trimmedEnd - 1])) trimmedEnd--;
    if (trimmedEnd > pos) emit("text", pos, trimmedEnd);
    advance(textEnd);
    if (open < 0) {
      tokens.push({ typ: "eof", val: "", pos, line });
      return tokens;
    }
    let at = open + 2 + (leftTrim ? 2 : 0);
    const actionLine = line;
    // A comment is an action of its own.
    if (input.startsWith("/*", at)) {
      const close = input.indexOf("*/", at + 2);
      if (close < 0) return (fail("unclosed comment", open), tokens);
      let after = close + 2;
      const rightTrim = input.startsWith(" -}}", after);
      if (rightTrim) after += 2;
      if (!input.startsWith("}}", after)) return (fail("comment ends before closing delimiter", open), tokens);
      after += 2;
      if (rightTrim) while (after < input.length && isSpace(input[after])) after++;
      advance(after);
      continue;
    }
    emit("leftDelim", open, open + 2, actionLine);
    advance(at);
    let depth = 0;
    for (;;) {
      const rightTrim = isSpace(input[at]) && input.startsWith("-}}", at + 1);
      if (rightTrim || input.startsWith("}}", at)) {
        if (depth > 0) return (fail("unclosed left paren", at), tokens);
        const delimAt = rightTrim ? at + 2 : at;
        emit("rightDelim", delimAt, delimAt + 2);
        at = delimAt + 2;
        if (rightTrim) while (at < input.length && isSpace(input[at])) at++;
        advance(at);
        break;
      }
      const c = input[at];
      if (c === undefined) return (fail("unclosed action", at), tokens);
      let end = at + 1;
      let typ: TokenType;
      if (isSpace(c)) {
        while (end < input.length && isSpace(input[end]) && !(input.startsWith("-}}", end + 1) && isSpace(input[end]))) end++;
        typ = "space";
      } else if (c === "=") typ = "assign";
      else if (c === ":") {
        if (input[end] !== "=") return (fail("expected :=", at), tokens);
        end++;
        typ = "declare";
      } else if (c === "|") typ = "pipe";
      else if (c === '"') {
        while (end < input.length && input[end] !== '"' && input[end] !== "\n") end += input[end] === "\\" && input[end + 1] !== "\n" ? 2 : 1;
        if (input[end] !== '"') return (fail("unterminated quoted string", at), tokens);
        end++;
        typ = "string";
      } else if (c === "`") {
        const close = input.indexOf("`", end);
        if (close < 0) return (fail("unterminated raw quoted string", at), tokens);
        end = close + 1;
        typ = "rawString";
      } else if (c === "'") {
        while (end < input.length && input[end] !== "'" && input[end] !== "\n") end += input[end] === "\\" ? 2 : 1;
        if (input[end] !== "'") return (fail("unterminated character constant", at), tokens);
        end++;
        typ = "charConstant";
      } else if (c === "$" || c === ".") {
        if (c === "." && /[0-9]/.test(input[end] ?? "")) {
          end = numberEnd(input, at);
          typ = "number";
        } else {
          while (isAlphaNumeric(input[end])) end++;
          typ = c === "$" ? "variable" : end === at + 1 ? "dot" : "field";
        }
      } else if (c === "+" || c === "-" || /[0-9]/.test(c)) {
        end = numberEnd(input, at);
        if (isAlphaNumeric(input[end])) return (fail(`bad number syntax: ${goQuote(input.slice(at, end + 1))}`, at), tokens);
        typ = "number";
      } else if (isAlphaNumeric(c)) {
        while (isAlphaNumeric(input[end])) end++;
        const word = input.slice(at, end);
        typ = KEYWORDS.has(word) ? "keyword" : word === "true" || word === "false" ? "bool" : word === "nil" ? "nil" : "identifier";
      } else if (c === "(") {
        depth++;
        typ = "leftParen";
      } else if (c === ")") {
        depth--;
        if (depth < 0) return (fail("unexpected right paren", at), tokens);
        typ = "rightParen";
      } else if (c.charCodeAt(0) < 0x80 && c >= " " && c !== "\x7f") typ = "char";
      else return (fail(`unrecognized character in action: ${unicodeVerb(String.fromCodePoint(input.codePointAt(at)!))}`, at), tokens);
      // Identifiers, fields and variables must end at a terminator (Go: "bad character").
      if ((typ === "identifier" || typ === "field" || typ === "variable" || typ === "dot" || typ === "keyword" || typ === "bool" || typ === "nil") && !atTerminator(input, end)) {
        return (fail(`bad character ${unicodeVerb(String.fromCodePoint(input.codePointAt(end)!))}`, at), tokens);
      }
      emit(typ, at, end);
      at = end;
    }
  }
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}

function atTerminator(input: string, i: number): boolean {
  const c = input[i];
  return c === undefined || isSpace(c) || c === "." || c === "," || c === "|" || c === ":" || c === ")" || c === "(" || input.startsWith("}}", i);
}

/** The end of the number at `at` (Go's scanNumber, decimal and hexadecimal forms). */
function numberEnd(input: string, at: number): number {
  const m = /^[+-]?(?:0[xX][0-9a-fA-F_]*(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9_]+)?|[0-9_]*(?:\.[0-9_]*)?(?:[eE][+-]?[0-9_]+)?)i?/.exec(input.slice(at))!;
  return at + Math.max(1, m[0].length);
}

/** Go's item.String(): `"x"` quoted, longer ones cut at 10 characters, keywords as `<if>`, EOF. */
function tokenString(t: Token): string {
  if (t.typ === "eof") return "EOF";
  if (t.typ === "error") return t.val;
  if (t.typ === "keyword" || t.typ === "nil" || t.typ === "dot") return `<${t.val}>`;
  if ([...t.val].length > 10) return goQuote([...t.val].slice(0, 10).join("")) + "...";
  return goQuote(t.val);
}

// ---------------------------------------------------------------------------------------------
// Parse tree

type Node =
  | { kind: "text"; pos: number; text: string }
  | { kind: "action"; pos: number; line: number; pipe: PipeNode }
  | ControlNode
  | { kind: "break" | "continue"; pos: number };

interface ControlNode {
  kind: "if" | "with" | "range";
  pos: number;
  pipe: PipeNode;
  list: Node[];
  elseList: Node[] | null;
}

interface PipeNode {
  kind: "pipe";
  pos: number;
  decl: VariableNode[];
  isAssign: boolean;
  cmds: CommandNode[];
}
interface CommandNode {
  kind: "command";
  pos: number;
  args: Operand[];
}
interface VariableNode {
  kind: "variable";
  pos: number;
  ident: string[];
}
type Operand =
  | PipeNode
  | VariableNode
  | { kind: "field"; pos: number; ident: string[] }
  | { kind: "chain"; pos: number; node: Operand; fields: string[] }
  | { kind: "identifier"; pos: number; name: string }
  | { kind: "dot" | "nil"; pos: number }
  | { kind: "bool"; pos: number; value: boolean }
  | { kind: "number"; pos: number; text: string; value: GoNumber }
  | { kind: "string"; pos: number; quoted: string; value: string };

type ErrorNode = Operand | CommandNode | Node;

/** A number constant of the template (not a JSON number): Go's int or float64. */
class GoNumber {
  constructor(
    readonly isFloat: boolean,
    readonly value: number,
  ) {}
}

/** Go's Node.String() of the nodes an error can point at. */
function nodeString(n: ErrorNode): string {
  switch (n.kind) {
    case "pipe": {
      const decl = n.decl.length > 0 ? n.decl.map(nodeString).join(", ") + (n.isAssign ? " = " : " := ") : "";
      return decl + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.kind === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    case "field":
      return "." + n.ident.join(".");
    case "variable":
      return n.ident.join(".");
    case "chain":
      return (n.node.kind === "pipe" ? `(${nodeString(n.node)})` : nodeString(n.node)) + n.fields.map((f) => "." + f).join("");
    case "identifier":
      return n.name;
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "bool":
      return String(n.value);
    case "number":
      return n.text;
    case "string":
      return n.quoted;
    case "action":
      return `{{${nodeString(n.pipe)}}}`;
    case "text":
      return goQuote(n.text);
    case "break":
    case "continue":
      return `{{${n.kind}}}`;
    default:
      return `{{${n.kind} ${nodeString(n.pipe)}}}`;
  }
}

const FUNCTIONS = new Set(["and", "or", "not", "len", "index", "eq", "ne", "lt", "le", "gt", "ge", "print", "printf", "println", "html", "js", "urlquery"]);

/** Go's parse.Tree over the token list (one template, no define/template/block). */
class Parser {
  private i = 0;
  private vars = ["$"];
  private rangeDepth = 0;
  private actionLine = 0;

  constructor(private readonly tokens: Token[]) {}

  private errorf(message: string): never {
    const t = this.tokens[Math.max(0, this.i - 1)] ?? this.tokens[0]!;
    throw new TemplateParseError(`template: ${NAME}:${t.line}: ${message}`);
  }
  private next(): Token {
    return this.tokens[Math.min(this.i++, this.tokens.length - 1)]!;
  }
  private backup(): void {
    this.i--;
  }
  private peek(): Token {
    return this.tokens[Math.min(this.i, this.tokens.length - 1)]!;
  }
  private nextNonSpace(): Token {
    let t = this.next();
    while (t.typ === "space") t = this.next();
    return t;
  }
  private peekNonSpace(): Token {
    const t = this.nextNonSpace();
    this.backup();
    return t;
  }
  private unexpected(t: Token, context: string): never {
    if (t.typ === "error") {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== t.line) {
        extra = ` in action started at ${NAME}:${this.actionLine}`;
        if (t.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(t.val + extra);
    }
    this.errorf(`unexpected ${tokenString(t)} in ${context}`);
  }
  private expect(typ: TokenType, context: string): Token {
    const t = this.nextNonSpace();
    if (t.typ !== typ) this.unexpected(t, context);
    return t;
  }

  parse(): Node[] {
    const root: Node[] = [];
    while (this.peek().typ !== "eof") {
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") this.errorf(`unexpected {{${n.kind}}}`);
      root.push(n as Node);
    }
    return root;
  }

  private itemList(): [Node[], { kind: "end" | "else"; pos: number }] {
    const list: Node[] = [];
    while (this.peekNonSpace().typ !== "eof") {
      const n = this.textOrAction();
      if (n.kind === "end" || n.kind === "else") return [list, n];
      list.push(n as Node);
    }
    this.next();
    this.errorf("unexpected EOF");
  }

  private textOrAction(): Node | { kind: "end" | "else"; pos: number } {
    const t = this.nextNonSpace();
    if (t.typ === "text") return { kind: "text", pos: t.pos, text: t.val };
    if (t.typ === "leftDelim") {
      this.actionLine = t.line;
      try {
        return this.action();
      } finally {
        this.actionLine = 0;
      }
    }
    this.unexpected(t, "input");
  }

  private action(): Node | { kind: "end" | "else"; pos: number } {
    const t = this.nextNonSpace();
    if (t.typ === "keyword") {
      switch (t.val) {
        case "else":
          return this.elseControl();
        case "end":
          return { kind: "end", pos: this.expect("rightDelim", "end").pos };
        case "if":
        case "with":
        case "range":
          return this.control(t.val);
        case "break":
        case "continue":
          if (this.rangeDepth === 0) this.errorf(`{{${t.val}}} outside {{range}}`);
          this.expect("rightDelim", t.val);
          return { kind: t.val, pos: t.pos };
        default:
          this.errorf(`{{${t.val}}} is not supported by rungrad templates`);
      }
    }
    this.backup();
    const start = this.peek();
    return { kind: "action", pos: start.pos, line: start.line, pipe: this.pipeline("command") };
  }

  private elseControl(): { kind: "else"; pos: number } {
    const peek = this.peekNonSpace();
    if (peek.typ === "keyword" && peek.val === "if") return { kind: "else", pos: peek.pos };
    return { kind: "else", pos: this.expect("rightDelim", "else").pos };
  }

  private control(kind: "if" | "with" | "range"): Node {
    const mark = this.vars.length;
    if (kind === "range") this.rangeDepth++;
    const pipe = this.pipeline(kind);
    const [list, first] = this.itemList();
    let next = first;
    if (kind === "range") this.rangeDepth--;
    let elseList: Node[] | null = null;
    if (next.kind === "else") {
      const peek = this.peek();
      if (kind === "if" && peek.typ === "keyword" && peek.val === "if") {
        this.next();
        elseList = [this.control("if")];
      } else {
        [elseList, next] = this.itemList();
        if (next.kind !== "end") this.errorf(`expected end; found {{${next.kind}}}`);
      }
    }
    this.vars.length = mark;
    return { kind, pos: pipe.pos, pipe, list, elseList };
  }

  private pipeline(context: string): PipeNode {
    const first = this.peekNonSpace();
    const pipe: PipeNode = { kind: "pipe", pos: first.pos, decl: [], isAssign: false, cmds: [] };
    for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== "variable") break;
      const at = this.i;
      this.next();
      const next = this.peekNonSpace();
      if (next.typ === "assign" || next.typ === "declare") {
        pipe.isAssign = next.typ === "assign";
        this.nextNonSpace();
        pipe.decl.push({ kind: "variable", pos: v.pos, ident: v.val.split(".") });
        this.vars.push(v.val);
        break;
      }
      if (next.typ === "char" && next.val === ",") {
        this.nextNonSpace();
        pipe.decl.push({ kind: "variable", pos: v.pos, ident: v.val.split(".") });
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const after = this.peekNonSpace().typ;
          if (after === "variable" || after === "rightDelim" || after === "rightParen") continue;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      }
      this.i = at; // `$x` is an operand, not a declaration
      break;
    }
    for (;;) {
      const t = this.nextNonSpace();
      switch (t.typ) {
        case "rightDelim":
        case "rightParen":
          this.checkPipeline(pipe, context);
          if (t.typ === "rightParen") this.backup();
          return pipe;
        case "bool":
        case "charConstant":
        case "dot":
        case "field":
        case "identifier":
        case "number":
        case "nil":
        case "rawString":
        case "string":
        case "variable":
        case "leftParen":
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(t, context);
      }
    }
  }

  private checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const k = c.args[0]!.kind;
      if (k === "bool" || k === "dot" || k === "nil" || k === "number" || k === "string") this.errorf(`non executable command in pipeline stage ${i + 2}`);
    });
  }

  private command(): CommandNode {
    const cmd: CommandNode = { kind: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand !== null) cmd.args.push(operand);
      const t = this.next();
      if (t.typ === "space") continue;
      if (t.typ === "error") this.errorf(t.val);
      if (t.typ === "rightDelim" || t.typ === "rightParen") this.backup();
      else if (t.typ !== "pipe") this.errorf(`unexpected ${tokenString(t)} in operand`);
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  private operand(): Operand | null {
    const node = this.term();
    if (node === null) return null;
    if (this.peek().typ !== "field") return node;
    const pos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().typ === "field") fields.push(this.next().val.slice(1));
    switch (node.kind) {
      case "field":
        return { kind: "field", pos, ident: [...node.ident, ...fields] };
      case "variable":
        return { kind: "variable", pos, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        this.errorf(`unexpected . after term ${goQuote(nodeString(node))}`);
      default:
        return { kind: "chain", pos, node, fields };
    }
  }

  private term(): Operand | null {
    const t = this.nextNonSpace();
    switch (t.typ) {
      case "error":
        this.errorf(t.val);
      case "identifier":
        if (!FUNCTIONS.has(t.val)) this.errorf(`function ${goQuote(t.val)} not defined`);
        return { kind: "identifier", pos: t.pos, name: t.val };
      case "dot":
        return { kind: "dot", pos: t.pos };
      case "nil":
        return { kind: "nil", pos: t.pos };
      case "variable": {
        const ident = t.val.split(".");
        if (!this.vars.includes(ident[0]!)) this.errorf(`undefined variable ${goQuote(ident[0]!)}`);
        return { kind: "variable", pos: t.pos, ident };
      }
      case "field":
        return { kind: "field", pos: t.pos, ident: [t.val.slice(1)] };
      case "bool":
        return { kind: "bool", pos: t.pos, value: t.val === "true" };
      case "number":
      case "charConstant":
        return { kind: "number", pos: t.pos, text: t.val, value: this.number(t) };
      case "leftParen": {
        const pipe = this.pipeline("parenthesized pipeline");
        const close = this.next();
        if (close.typ !== "rightParen") this.errorf(`unclosed right paren: unexpected ${tokenString(close)}`);
        return pipe;
      }
      case "string":
      case "rawString":
        return { kind: "string", pos: t.pos, quoted: t.val, value: this.unquote(t) };
    }
    this.backup();
    return null;
  }

  private number(t: Token): GoNumber {
    if (t.typ === "charConstant") {
      const s = this.unquote({ ...t, val: '"' + t.val.slice(1, -1).replace(/"/g, '\\"') + '"' });
      if ([...s].length !== 1) this.errorf(`malformed character constant: ${t.val}`);
      return new GoNumber(false, s.codePointAt(0)!);
    }
    const text = t.val.replace(/_/g, "");
    const sign = text.startsWith("-") ? -1 : 1;
    const radix = /^[+-]?0[xX][0-9a-fA-F]+$/.test(text) ? 16 : /^[+-]?0[0-7]+$/.test(text) ? 8 : 10;
    if (radix !== 10) return new GoNumber(false, sign * parseInt(text.replace(/^[+-]?(0[xX])?/, ""), radix));
    if (!/^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text)) this.errorf(`illegal number syntax: ${goQuote(t.val)}`);
    const value = Number(text);
    return new GoNumber(/[.eE]/.test(text) || !Number.isSafeInteger(value), value);
  }

  private unquote(t: Token): string {
    if (t.typ === "rawString") return t.val.slice(1, -1).replace(/\r/g, "");
    try {
      return goUnquote(t.val);
    } catch {
      this.errorf("invalid syntax");
    }
  }
}

/** strconv.Unquote of a double-quoted Go string literal. */
function goUnquote(quoted: string): string {
  const body = quoted.slice(1, -1);
  const simple: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", '"': '"' };
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/gs, (_m, e: string) => {
    if (simple[e] !== undefined) return simple[e]!;
    if (/^[xuU]/.test(e) || /^[0-7]{3}$/.test(e)) {
      const cp = /^[0-7]/.test(e) ? parseInt(e, 8) : parseInt(e.slice(1), 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new Error("invalid");
      return String.fromCodePoint(cp);
    }
    throw new Error("invalid");
  });
}

/** Parses a template; a syntax error throws TemplateParseError with Go's text. */
export function parseGoTemplate(text: string): Node[] {
  return new Parser(lex(text)).parse();
}

// ---------------------------------------------------------------------------------------------
// Execution over decoded JSON (dictionaries, arrays, JsonNumber, strings, booleans, null)

/** A value with what Go's reflect would know of it: `iface` when its static type is interface{}. */
interface Value {
  /** undefined is Go's invalid reflect.Value (no value at all); null is a nil interface. */
  x: unknown;
  iface: boolean;
}
const INVALID: Value = { x: undefined, iface: false };
const MISSING: Value = { x: Symbol("missing"), iface: false };
const concrete = (x: unknown): Value => ({ x, iface: false });
const boxed = (x: unknown): Value => ({ x, iface: true });

/** An interface{} value dug out to its content (Go's indirectInterface): nil becomes invalid. */
const unbox = (v: Value): Value => (v.iface ? (v.x === null ? INVALID : concrete(v.x)) : v);

const isMap = (x: unknown): x is Record<string, unknown> =>
  typeof x === "object" && x !== null && !Array.isArray(x) && !(x instanceof JsonNumber) && !(x instanceof GoNumber);

function typeName(v: Value): string {
  if (v.iface) return "interface {}";
  const x = v.x;
  if (typeof x === "string") return "string";
  if (typeof x === "boolean") return "bool";
  if (x instanceof JsonNumber) return "json.Number";
  if (x instanceof GoNumber) return x.isFloat ? "float64" : "int";
  if (Array.isArray(x)) return "[]interface {}";
  return "map[string]interface {}";
}

type Kind = "invalid" | "bool" | "int" | "float" | "string" | "slice" | "map";
function kindOf(v: Value): Kind {
  const x = unbox(v).x;
  if (x === undefined) return "invalid";
  if (typeof x === "string" || x instanceof JsonNumber) return "string";
  if (typeof x === "boolean") return "bool";
  if (x instanceof GoNumber) return x.isFloat ? "float" : "int";
  return Array.isArray(x) ? "slice" : "map";
}
const stringOf = (x: unknown): string => (x instanceof JsonNumber ? x.literal : (x as string));

/** Go's isTrue: empty strings (json.Number included), slices and maps, zero numbers, false and nil are false. */
function isTrue(v: Value): boolean {
  const x = unbox(v).x;
  if (x === undefined) return false;
  if (typeof x === "string") return x.length > 0;
  if (x instanceof JsonNumber) return x.literal.length > 0;
  if (typeof x === "boolean") return x;
  if (x instanceof GoNumber) return x.value !== 0;
  if (Array.isArray(x)) return x.length > 0;
  return Object.keys(x as object).length > 0;
}

/** fmt's %v of a float64 (strconv's shortest %g): exponent form when the exponent is below -4 or from 6. */
function formatFloat(f: number): string {
  if (Number.isNaN(f)) return "NaN";
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf";
  if (f === 0) return Object.is(f, -0) ? "-0" : "0";
  const [mantissa, expText] = f.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  return String(f);
}

/** fmt's %v of a value inside a container or as a print argument. */
function formatValue(x: unknown): string {
  if (x === undefined || x === null) return "<nil>";
  if (typeof x === "string") return x;
  if (typeof x === "boolean") return String(x);
  if (x instanceof JsonNumber) return x.literal;
  if (x instanceof GoNumber) return x.isFloat ? formatFloat(x.value) : String(x.value);
  if (Array.isArray(x)) return "[" + x.map(formatValue).join(" ") + "]";
  const o = x as Record<string, unknown>;
  return "map[" + Object.keys(o).sort(compareBytes).map((k) => `${k}:${formatValue(o[k])}`).join(" ") + "]";
}

/** A string kind to fmt (json.Number is one). */
const isStringKind = (v: unknown) => typeof v === "string" || v instanceof JsonNumber;

/** The type fmt names in `%!verb(type=value)`. */
const fmtType = (a: unknown) => (a === null || a === undefined ? "<nil>" : typeName(concrete(a)));

/** fmt.Sprint: a space between operands when neither is a string. */
function sprint(args: unknown[]): string {
  let out = "";
  args.forEach((a, i) => {
    if (i > 0 && !isStringKind(a) && !isStringKind(args[i - 1])) out += " ";
    out += formatValue(a);
  });
  return out;
}

/** fmt.Sprintf for the verbs a template over JSON needs: %v %s %d %q %t %x %%, with Go's %!verb(type=value) for a mismatch. */
function sprintf(format: string, args: unknown[]): string {
  let out = "";
  let next = 0;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if (c !== "%") {
      out += c;
      continue;
    }
    const verb = format[++i];
    if (verb === undefined) {
      out += "%!(NOVERB)";
      break;
    }
    if (verb === "%") {
      out += "%";
      continue;
    }
    if (next >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const a = args[next++];
    const bad = () => (a === null || a === undefined ? `%!${verb}(<nil>)` : `%!${verb}(${fmtType(a)}=${formatValue(a)})`);
    switch (verb) {
      case "v":
        out += formatValue(a);
        break;
      case "s":
        out += typeof a === "string" || a instanceof JsonNumber || Array.isArray(a) || isMap(a) ? formatValue(a) : bad();
        break;
      case "q":
        out += typeof a === "string" || a instanceof JsonNumber ? goQuote(stringOf(a)) : bad();
        break;
      case "d":
        out += a instanceof GoNumber && !a.isFloat ? String(a.value) : bad();
        break;
      case "t":
        out += typeof a === "boolean" ? String(a) : bad();
        break;
      case "x":
        if (typeof a === "string" || a instanceof JsonNumber) out += Buffer.from(stringOf(a), "utf8").toString("hex");
        else if (a instanceof GoNumber && !a.isFloat) out += (a.value < 0 ? "-" : "") + Math.abs(a.value).toString(16);
        else out += bad();
        break;
      default:
        out += bad();
    }
  }
  if (next < args.length) out += "%!(EXTRA " + args.slice(next).map((a) => `${fmtType(a)}=${formatValue(a)}`).join(", ") + ")";
  return out;
}

class BreakSignal {
  constructor(readonly kind: "break" | "continue") {}
}

/** One execution: the text (for error positions), the variable stack and the node errors point at. */
class State {
  node: ErrorNode | null = null;
  readonly vars: { name: string; value: Value }[];
  out = "";

  constructor(
    private readonly text: string,
    data: Value,
  ) {
    this.vars = [{ name: "$", value: data }];
  }

  at(node: ErrorNode): void {
    this.node = node;
  }

  errorf(message: string): never {
    const node = this.node!;
    const before = this.text.slice(0, node.pos);
    const lineStart = before.lastIndexOf("\n") + 1;
    const line = 1 + countNewlines(before, 0, before.length);
    const column = Buffer.byteLength(before.slice(lineStart), "utf8");
    throw new TemplateExecError(`template: ${NAME}:${line}:${column}: executing "${NAME}" at <${nodeString(node)}>: ${message}`);
  }

  walk(dot: Value, nodes: Node[]): void {
    for (const node of nodes) this.walkNode(dot, node);
  }

  private walkNode(dot: Value, node: Node): void {
    this.at(node);
    switch (node.kind) {
      case "text":
        this.out += node.text;
        return;
      case "action": {
        const value = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) {
          this.at(node);
          this.out += value.x === undefined ? "<no value>" : formatValue(value.x);
        }
        return;
      }
      case "if":
      case "with": {
        const mark = this.vars.length;
        const value = this.evalPipeline(dot, node.pipe);
        if (isTrue(value)) this.walk(node.kind === "with" ? value : dot, node.list);
        else if (node.elseList) this.walk(dot, node.elseList);
        this.vars.length = mark;
        return;
      }
      case "range":
        this.walkRange(dot, node);
        return;
      case "break":
      case "continue":
        throw new BreakSignal(node.kind);
    }
  }

  private walkRange(dot: Value, r: ControlNode): void {
    this.at(r);
    const outer = this.vars.length;
    const value = unbox(this.evalPipeline(dot, r.pipe));
    const mark = this.vars.length;
    const x = value.x;
    const decl = r.pipe.decl.length;
    const iteration = (key: Value, elem: Value): boolean => {
      if (decl > 0) this.vars[this.vars.length - 1]!.value = elem;
      if (decl > 1) this.vars[this.vars.length - 2]!.value = key;
      try {
        this.walk(elem, r.list);
      } catch (err) {
        if (!(err instanceof BreakSignal)) throw err;
        if (err.kind === "break") return false;
      } finally {
        this.vars.length = mark;
      }
      return true;
    };
    let ran = false;
    if (Array.isArray(x)) {
      for (let i = 0; i < x.length; i++) {
        ran = true;
        if (!iteration(concrete(new GoNumber(false, i)), boxed(x[i]))) break;
      }
    } else if (isMap(x)) {
      for (const k of Object.keys(x).sort(compareBytes)) {
        ran = true;
        if (!iteration(concrete(k), boxed(x[k]))) break;
      }
    } else if (x !== undefined) {
      this.errorf(`range can't iterate over ${formatValue(x)}`);
    }
    if (!ran && r.elseList) this.walk(dot, r.elseList);
    this.vars.length = outer;
  }

  private evalPipeline(dot: Value, pipe: PipeNode): Value {
    this.at(pipe);
    let value = MISSING;
    for (const cmd of pipe.cmds) value = unbox(this.evalCommand(dot, cmd, value));
    for (const v of pipe.decl) {
      if (pipe.isAssign) this.setVar(v.ident[0]!, value);
      else this.vars.push({ name: v.ident[0]!, value });
    }
    return value;
  }

  private setVar(name: string, value: Value): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      if (this.vars[i]!.name === name) {
        this.vars[i]!.value = value;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  private varValue(name: string): Value {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i]!.value;
    this.errorf(`undefined variable: ${name}`);
  }

  private notAFunction(args: Operand[], final: Value): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0]!)}`);
  }

  private evalCommand(dot: Value, cmd: CommandNode, final: Value): Value {
    const first = cmd.args[0]!;
    switch (first.kind) {
      case "field":
        this.at(first);
        return this.evalFieldChain(dot, dot, first.ident, cmd.args, final);
      case "chain":
        return this.evalChain(dot, first, cmd.args, final);
      case "identifier":
        this.at(first);
        return this.evalCall(dot, first.name, cmd, cmd.args, final);
      case "pipe":
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariable(dot, first, cmd.args, final);
    }
    this.at(first);
    this.notAFunction(cmd.args, final);
    switch (first.kind) {
      case "bool":
        return concrete(first.value);
      case "dot":
        return dot;
      case "nil":
        this.errorf("nil is not a command");
      case "number":
        return concrete(first.value);
      case "string":
        return concrete(first.value);
    }
  }

  private evalChain(dot: Value, chain: Extract<Operand, { kind: "chain" }>, args: Operand[] | null, final: Value): Value {
    this.at(chain);
    if (chain.node.kind === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const receiver = this.evalArg(dot, "any", chain.node);
    return this.evalFieldChain(dot, receiver, chain.fields, args, final);
  }

  private evalVariable(dot: Value, v: VariableNode, args: Operand[] | null, final: Value): Value {
    this.at(v);
    const value = this.varValue(v.ident[0]!);
    if (v.ident.length === 1) {
      this.notAFunction(args ?? [v], final);
      return value;
    }
    return this.evalFieldChain(dot, value, v.ident.slice(1), args, final);
  }

  private evalFieldChain(dot: Value, receiver: Value, ident: string[], args: Operand[] | null, final: Value): Value {
    for (let i = 0; i < ident.length - 1; i++) receiver = this.evalField(ident[i]!, null, MISSING, receiver);
    return this.evalField(ident[ident.length - 1]!, args, final, receiver);
  }

  private evalField(name: string, args: Operand[] | null, final: Value, receiver: Value): Value {
    if (receiver.x === undefined) this.errorf(`nil data; no entry for key ${goQuote(name)}`);
    const typ = typeName(receiver);
    if (receiver.iface && receiver.x === null) this.errorf(`nil pointer evaluating ${typ}.${name}`);
    const x = receiver.x;
    if (isMap(x)) {
      if ((args !== null && args.length > 1) || final !== MISSING) this.errorf(`${name} is not a method but has arguments`);
      if (!Object.hasOwn(x, name)) this.errorf(`map has no entry for key ${goQuote(name)}`);
      return boxed(x[name]);
    }
    this.errorf(`can't evaluate field ${name} in type ${typ}`);
  }

  /** An argument of a builtin: `string` parameters want a string, the others take any value. */
  private evalArg(dot: Value, typ: "any" | "string", n: Operand): Value {
    this.at(n);
    let v: Value;
    switch (n.kind) {
      case "dot":
        v = dot;
        break;
      case "nil":
        if (typ === "any") return INVALID;
        this.errorf("cannot assign nil to string");
      case "field":
        v = this.evalFieldChain(dot, dot, n.ident, [n], MISSING);
        break;
      case "variable":
        v = this.evalVariable(dot, n, null, MISSING);
        break;
      case "pipe":
        v = this.evalPipeline(dot, n);
        break;
      case "identifier":
        v = this.evalCall(dot, n.name, n, null, MISSING);
        break;
      case "chain":
        v = this.evalChain(dot, n, null, MISSING);
        break;
      case "string":
        return concrete(n.value);
      case "bool":
        if (typ === "string") this.errorf(`expected string; found ${nodeString(n)}`);
        return concrete(n.value);
      case "number":
        if (typ === "string") this.errorf(`expected string; found ${nodeString(n)}`);
        return concrete(n.value);
    }
    if (typ === "string") {
      const inner = unbox(v);
      if (inner.x === undefined) this.errorf("invalid value; expected string");
      if (typeof inner.x !== "string") this.errorf(`wrong type for value; expected string; got ${typeName(inner)}`);
      return inner;
    }
    return v;
  }

  /** A builtin call (Go's evalCall): argument count, evaluation, and `error calling <f>: …`. */
  private evalCall(dot: Value, name: string, node: ErrorNode, args: Operand[] | null, final: Value): Value {
    const operands = args === null ? [] : args.slice(1);
    const count = operands.length + (final !== MISSING ? 1 : 0);
    const [fixed, variadic] = ARITY[name]!;
    if (variadic ? count < fixed : count !== fixed) {
      this.errorf(variadic ? `wrong number of args for ${name}: want at least ${fixed} got ${operands.length}` : `wrong number of args for ${name}: want ${fixed} got ${count}`);
    }
    if (name === "and" || name === "or") {
      let v = INVALID;
      for (const arg of operands) {
        v = unbox(this.evalArg(dot, "any", arg));
        if (isTrue(v) === (name === "or")) return v;
      }
      return final !== MISSING ? final : v;
    }
    const values = operands.map((arg, i) => this.evalArg(dot, name === "printf" && i === 0 ? "string" : "any", arg));
    if (final !== MISSING) values.push(final);
    try {
      return callBuiltin(name, values);
    } catch (err) {
      if (!(err instanceof BuiltinError)) throw err;
      this.at(node);
      this.errorf(`error calling ${name}: ${err.message}`);
    }
  }
}

/** Fixed parameters and whether more may follow. */
const ARITY: Record<string, [number, boolean]> = {
  and: [1, true], or: [1, true], not: [1, false], len: [1, false], index: [1, true],
  eq: [1, true], ne: [2, false], lt: [2, false], le: [2, false], gt: [2, false], ge: [2, false],
  print: [0, true], printf: [1, true], println: [0, true], html: [0, true], js: [0, true], urlquery: [0, true],
};

class BuiltinError extends Error {}

function callBuiltin(name: string, values: Value[]): Value {
  const plain = () => values.map((v) => unbox(v).x);
  switch (name) {
    case "not":
      return concrete(!isTrue(values[0]!));
    case "len": {
      const x = unbox(values[0]!).x;
      if (x === undefined) throw new BuiltinError("len of nil pointer");
      if (typeof x === "string" || x instanceof JsonNumber) return concrete(new GoNumber(false, Buffer.byteLength(stringOf(x), "utf8")));
      if (Array.isArray(x)) return concrete(new GoNumber(false, x.length));
      if (isMap(x)) return concrete(new GoNumber(false, Object.keys(x).length));
      throw new BuiltinError(`len of type ${typeName(concrete(x))}`);
    }
    case "index":
      return index(values[0]!, values.slice(1));
    case "eq":
      return concrete(equal(values[0]!, values.slice(1)));
    case "ne":
      return concrete(!equal(values[0]!, values.slice(1)));
    case "lt":
      return concrete(less(values[0]!, values[1]!));
    case "le":
      return concrete(less(values[0]!, values[1]!) || equal(values[0]!, [values[1]!]));
    case "gt":
      return concrete(!(less(values[0]!, values[1]!) || equal(values[0]!, [values[1]!])));
    case "ge":
      return concrete(!less(values[0]!, values[1]!));
    case "print":
      return concrete(sprint(plain()));
    case "println":
      return concrete(plain().map(formatValue).join(" ") + "\n");
    case "printf":
      return concrete(sprintf(stringOf(unbox(values[0]!).x), plain().slice(1)));
    case "html":
      return concrete(evalArgs(plain()).replace(/["'&<>]/g, (c) => ({ '"': "&#34;", "'": "&#39;", "&": "&amp;", "<": "&lt;", ">": "&gt;" })[c]!));
    case "js":
      return concrete(jsEscape(evalArgs(plain())));
    case "urlquery":
      return concrete(encodeURIComponent(evalArgs(plain())).replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase()).replace(/%20/g, "+"));
  }
  throw new BuiltinError(`unknown function ${name}`);
}

/** Go's evalArgs: a lone string as is, anything else through fmt.Sprint. */
const evalArgs = (args: unknown[]): string => (args.length === 1 && typeof args[0] === "string" ? args[0] : sprint(args));

function jsEscape(s: string): string {
  let out = "";
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === "\\") out += "\\\\";
    else if (ch === "'") out += "\\'";
    else if (ch === '"') out += '\\"';
    else if (ch === "<") out += "\\x3C";
    else if (ch === ">") out += "\\x3E";
    else if (c < 0x20) out += "\\u00" + c.toString(16).toUpperCase().padStart(2, "0");
    else if (c >= 0x80 && !/^[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]$/u.test(ch)) out += "\\u" + c.toString(16).toUpperCase().padStart(4, "0");
    else out += ch;
  }
  return out;
}

function index(item: Value, indexes: Value[]): Value {
  let v = unbox(item);
  if (v.x === undefined) throw new BuiltinError("index of untyped nil");
  for (const raw of indexes) {
    const i = unbox(raw);
    v = unbox(v);
    if (v.x === undefined) throw new BuiltinError("index of nil pointer");
    const x = v.x;
    if (Array.isArray(x) || typeof x === "string" || x instanceof JsonNumber) {
      if (!(i.x instanceof GoNumber) || i.x.isFloat) throw new BuiltinError(`cannot index slice/array with type ${i.x === undefined ? "<nil>" : typeName(i)}`);
      const n = i.x.value;
      if (Array.isArray(x)) {
        if (n < 0 || n >= x.length) throw new BuiltinError(`index out of range: ${n}`);
        v = boxed(x[n]);
      } else {
        const bytes = Buffer.from(stringOf(x), "utf8");
        if (n < 0 || n >= bytes.length) throw new BuiltinError(`index out of range: ${n}`);
        v = concrete(new GoNumber(false, bytes[n]!));
      }
    } else if (isMap(x)) {
      if (i.x === undefined) {
        v = boxed(Object.hasOwn(x, "") ? x[""] : null);
        continue;
      }
      if (typeof i.x !== "string") throw new BuiltinError(`${typeName(i)} is not index type for map[string]interface {}`);
      v = boxed(Object.hasOwn(x, i.x) ? x[i.x] : null);
    } else {
      throw new BuiltinError(`can't index item of type ${typeName(v)}`);
    }
  }
  return v;
}

function equal(a: Value, others: Value[]): boolean {
  if (others.length === 0) throw new BuiltinError("missing argument for comparison");
  const k1 = kindOf(a);
  const x1 = unbox(a).x;
  for (const b of others) {
    const k2 = kindOf(b);
    const x2 = unbox(b).x;
    if (k1 !== k2) {
      if (x1 !== undefined && x2 !== undefined) throw new BuiltinError("incompatible types for comparison");
      continue;
    }
    switch (k1) {
      case "bool":
        if (x1 === x2) return true;
        break;
      case "int":
      case "float":
        if ((x1 as GoNumber).value === (x2 as GoNumber).value) return true;
        break;
      case "string":
        if (stringOf(x1) === stringOf(x2)) return true;
        break;
      case "invalid":
        return true;
      default:
        throw new BuiltinError(`non-comparable types ${formatValue(x1)}: ${typeName(concrete(x1))}, ${typeName(concrete(x2))}: ${formatValue(x2)}`);
    }
  }
  return false;
}

const BASIC_KINDS: ReadonlySet<Kind> = new Set(["bool", "int", "float", "string"]);

function less(a: Value, b: Value): boolean {
  const k1 = kindOf(a);
  const k2 = kindOf(b);
  if (!BASIC_KINDS.has(k1) || !BASIC_KINDS.has(k2)) throw new BuiltinError("invalid type for comparison");
  if (k1 !== k2) throw new BuiltinError("incompatible types for comparison");
  const x1 = unbox(a).x;
  const x2 = unbox(b).x;
  if (k1 === "bool") throw new BuiltinError("invalid type for comparison");
  if (k1 === "string") return compareBytes(stringOf(x1), stringOf(x2)) < 0;
  return (x1 as GoNumber).value < (x2 as GoNumber).value;
}

/** Executes parsed nodes over a decoded JSON value; a failure throws TemplateExecError with Go's text. */
export function executeGoTemplate(text: string, nodes: Node[], data: unknown): string {
  const state = new State(text, concrete(data === null ? undefined : data));
  state.walk(state.vars[0]!.value, nodes);
  return state.out;
}
