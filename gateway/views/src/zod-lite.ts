// A small stand-in for zod, the schema library under the MCP SDK, for the
// views' bundles alone. The SDK builds its message schemas with zod at load
// and checks every message a view receives against them; zod itself is
// about 190 kB of each view, most of it for what a view never does (JSON
// Schema conversion, compiled parsers, error messages in many forms).
//
// This keeps what the views' SDK code runs: the same schema-building calls,
// and checks of structure that decide what a message is (its object keys,
// their types, literals, unions, arrays, records, defaults and fallbacks,
// refinements and transforms), with zod's outputs (unknown keys stripped
// from plain objects, kept by loose ones, defaults filled in). It checks
// the shape of strings (URLs, dates) loosely. The views' browser tests run
// the SDK's handshake and every view's answers through it.
/* eslint-disable @typescript-eslint/no-explicit-any */

type Issue = { code: string; path: PropertyKey[]; message: string; input?: unknown };
type Fn = (v: any, path: PropertyKey[], issues: Issue[]) => any;

export class ZodError extends Error {
  issues: Issue[];
  constructor(issues: Issue[]) {
    super(issues.map((i) => (i.path.length ? i.path.join(".") + ": " : "") + i.message).join("; "));
    this.name = "ZodError";
    this.issues = issues;
  }
  get errors() {
    return this.issues;
  }
  format() {
    return { _errors: this.issues.map((i) => i.message) };
  }
}

export const NEVER = Object.freeze({ status: "aborted" }) as never;

const issue = (issues: Issue[], code: string, path: PropertyKey[], message: string, input?: unknown) =>
  issues.push({ code, path, message, input });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

// A refinement's context, as zod hands it to superRefine and transform.
function ctxFor(v: unknown, path: PropertyKey[], issues: Issue[]) {
  return {
    value: v,
    path,
    issues,
    addIssue(i: any) {
      issues.push({ code: i?.code ?? "custom", path: [...path, ...(i?.path ?? [])], message: i?.message ?? "invalid", input: v });
    },
  };
}

export class ZodType {
  kind: string;
  fn: Fn;
  optionalIn = false; // a missing object key is left to this schema
  description?: string;
  [k: string]: any;

  constructor(kind: string, fn: Fn, props: Record<string, unknown> = {}) {
    this.kind = kind;
    this.fn = fn;
    Object.assign(this, props);
  }

  get _zod() {
    return { def: { type: this.kind }, optin: this.optionalIn ? "optional" : undefined };
  }

  get "~standard"() {
    return {
      version: 1,
      vendor: "zod",
      validate: (v: unknown) => {
        const r = this.safeParse(v);
        return r.success ? { value: r.data } : { issues: r.error.issues };
      },
    };
  }

  safeParse(v: unknown): { success: true; data: any; error?: undefined } | { success: false; error: ZodError; data?: undefined } {
    const issues: Issue[] = [];
    const data = this.fn(v, [], issues);
    return issues.length ? { success: false, error: new ZodError(issues) } : { success: true, data };
  }

  parse(v: unknown) {
    const r = this.safeParse(v);
    if (!r.success) throw r.error;
    return r.data;
  }

  async safeParseAsync(v: unknown) {
    return this.safeParse(v);
  }

  async parseAsync(v: unknown) {
    return this.parse(v);
  }

  spa(v: unknown) {
    return this.safeParseAsync(v);
  }

  // The same schema with other properties: a description, a mode.
  with(props: Record<string, unknown>): this {
    const c = Object.create(Object.getPrototypeOf(this));
    Object.assign(c, this, props);
    return c;
  }

  describe(description: string) {
    return this.with({ description });
  }

  meta(m?: any) {
    return m === undefined ? {} : this.with({ description: m?.description ?? this.description });
  }

  register() {
    return this;
  }

  brand() {
    return this;
  }

  readonly() {
    return this;
  }

  check() {
    return this;
  }

  optional(): ZodType {
    return new ZodType("optional", (v, p, i) => (v === undefined ? undefined : this.fn(v, p, i)), { inner: this, optionalIn: true });
  }

  exactOptional() {
    return this.optional();
  }

  nullable(): ZodType {
    return new ZodType("nullable", (v, p, i) => (v === null ? null : this.fn(v, p, i)), { inner: this, optionalIn: this.optionalIn });
  }

  nullish() {
    return this.nullable().optional();
  }

  unwrap() {
    return this.inner;
  }

  default(d: unknown) {
    const value = () => (typeof d === "function" ? (d as () => unknown)() : structuredClone(d));
    return new ZodType("default", (v, p, i) => (v === undefined ? value() : this.fn(v, p, i)), { inner: this, optionalIn: true });
  }

  prefault(d: unknown) {
    return new ZodType("prefault", (v, p, i) => this.fn(v === undefined ? (typeof d === "function" ? (d as () => unknown)() : d) : v, p, i), { inner: this, optionalIn: true });
  }

  catch(c: unknown) {
    return new ZodType("catch", (v, p, i) => {
      const own: Issue[] = [];
      const out = this.fn(v, p, own);
      if (!own.length) return out;
      return typeof c === "function" ? (c as (x: unknown) => unknown)({ error: new ZodError(own), input: v }) : c;
    }, { inner: this, optionalIn: true });
  }

  or(b: ZodType) {
    return union([this, b]);
  }

  and(b: ZodType) {
    return intersection(this, b);
  }

  array() {
    return array(this);
  }

  transform(f: (v: any, ctx: any) => unknown) {
    return new ZodType("transform", (v, p, i) => {
      const n = i.length;
      const out = this.fn(v, p, i);
      return i.length > n ? out : f(out, ctxFor(out, p, i));
    }, { inner: this, optionalIn: this.optionalIn });
  }

  pipe(b: ZodType) {
    return new ZodType("pipe", (v, p, i) => {
      const n = i.length;
      const out = this.fn(v, p, i);
      return i.length > n ? out : b.fn(out, p, i);
    }, { inner: this, optionalIn: this.optionalIn });
  }

  refine(f: (v: any) => unknown, msg?: any) {
    return new ZodType(this.kind, (v, p, i) => {
      const n = i.length;
      const out = this.fn(v, p, i);
      if (i.length === n && !f(out)) issue(i, "custom", p, (typeof msg === "string" ? msg : msg?.message) ?? "invalid input", v);
      return out;
    }, { ...this.props(), inner: this });
  }

  superRefine(f: (v: any, ctx: any) => unknown) {
    return new ZodType(this.kind, (v, p, i) => {
      const n = i.length;
      const out = this.fn(v, p, i);
      if (i.length === n) f(out, ctxFor(out, p, i));
      return out;
    }, { ...this.props(), inner: this });
  }

  // props are what a refinement keeps of the schema it refines.
  props(): Record<string, unknown> {
    const { kind, fn, ...rest } = this;
    void kind;
    void fn;
    return rest;
  }

  // test adds a check of the value that must hold, with its message.
  test(ok: (v: any) => boolean, message: string) {
    return this.refine((v) => v === undefined || v === null || ok(v), message);
  }

  // String, number and array checks; on a string or array min and max
  // bound its length.
  min(n: number) {
    return this.test((v) => (typeof v === "number" ? v >= n : v.length >= n), `too small: under ${n}`);
  }
  max(n: number) {
    return this.test((v) => (typeof v === "number" ? v <= n : v.length <= n), `too big: over ${n}`);
  }
  gte(n: number) {
    return this.min(n);
  }
  lte(n: number) {
    return this.max(n);
  }
  gt(n: number) {
    return this.test((v) => v > n, `too small: not over ${n}`);
  }
  lt(n: number) {
    return this.test((v) => v < n, `too big: not under ${n}`);
  }
  positive() {
    return this.gt(0);
  }
  nonnegative() {
    return this.min(0);
  }
  negative() {
    return this.lt(0);
  }
  nonpositive() {
    return this.max(0);
  }
  int() {
    return this.test((v) => Number.isInteger(v), "not an integer");
  }
  safe() {
    return this.test((v) => Number.isSafeInteger(v), "not a safe integer");
  }
  finite() {
    return this.test((v) => Number.isFinite(v), "not finite");
  }
  length(n: number) {
    return this.test((v) => v.length === n, `length is not ${n}`);
  }
  nonempty() {
    return this.min(1);
  }
  regex(re: RegExp) {
    return this.test((v) => re.test(v), "does not match " + String(re));
  }
  startsWith(s: string) {
    return this.test((v) => v.startsWith(s), `does not start with ${s}`);
  }
  endsWith(s: string) {
    return this.test((v) => v.endsWith(s), `does not end with ${s}`);
  }
  includes(s: string) {
    return this.test((v) => v.includes(s), `does not include ${s}`);
  }
  url() {
    return this.test((v) => {
      try {
        return !!new URL(v);
      } catch {
        return false;
      }
    }, "not a URL");
  }
  // Formats checked loosely: a string is enough.
  email() {
    return this;
  }
  uuid() {
    return this;
  }
  datetime() {
    return this;
  }
  date() {
    return this;
  }
  base64() {
    return this;
  }
  trim() {
    return this.transform((v) => (typeof v === "string" ? v.trim() : v));
  }
  toLowerCase() {
    return this.transform((v) => (typeof v === "string" ? v.toLowerCase() : v));
  }
  toUpperCase() {
    return this.transform((v) => (typeof v === "string" ? v.toUpperCase() : v));
  }

  // Objects.
  objectWith(shape: Record<string, ZodType>, mode?: string, rest?: ZodType) {
    return object(shape, mode ?? this.mode, rest === undefined ? this.rest : rest);
  }
  extend(more: Record<string, ZodType>) {
    return this.objectWith({ ...this.shape, ...more });
  }
  safeExtend(more: Record<string, ZodType>) {
    return this.extend(more);
  }
  merge(other: ZodType) {
    return this.objectWith({ ...this.shape, ...other.shape }, other.mode, other.rest);
  }
  pick(mask: Record<string, boolean>) {
    return this.objectWith(Object.fromEntries(Object.entries(this.shape as Record<string, ZodType>).filter(([k]) => mask[k])));
  }
  omit(mask: Record<string, boolean>) {
    return this.objectWith(Object.fromEntries(Object.entries(this.shape as Record<string, ZodType>).filter(([k]) => !mask[k])));
  }
  partial(mask?: Record<string, boolean>) {
    return this.objectWith(Object.fromEntries(Object.entries(this.shape as Record<string, ZodType>).map(([k, s]) => [k, !mask || mask[k] ? s.optional() : s])));
  }
  required() {
    return this.objectWith(Object.fromEntries(Object.entries(this.shape as Record<string, ZodType>).map(([k, s]) => [k, s.kind === "optional" ? s.inner : s])));
  }
  passthrough() {
    return this.objectWith(this.shape, "loose");
  }
  loose() {
    return this.passthrough();
  }
  strict() {
    return this.objectWith(this.shape, "strict");
  }
  strip() {
    return this.objectWith(this.shape, "strip", null as unknown as ZodType);
  }
  catchall(rest: ZodType) {
    return this.objectWith(this.shape, "loose", rest);
  }
  keyof() {
    return _enum(Object.keys(this.shape));
  }
}

const make = (kind: string, ok: (v: any) => boolean, what: string, props: Record<string, unknown> = {}) =>
  new ZodType(kind, (v, p, i) => {
    if (!ok(v)) issue(i, "invalid_type", p, `expected ${what}`, v);
    return v;
  }, props);

export const string = () => make("string", (v) => typeof v === "string", "string");
// As in zod 4, a number is finite: NaN and the infinities are refused.
export const number = () => make("number", (v) => typeof v === "number" && Number.isFinite(v), "number");
export const boolean = () => make("boolean", (v) => typeof v === "boolean", "boolean");
export const bigint = () => make("bigint", (v) => typeof v === "bigint", "bigint");
export const symbol = () => make("symbol", (v) => typeof v === "symbol", "symbol");
const _null = () => make("null", (v) => v === null, "null");
const _undefined = () => make("undefined", (v) => v === undefined, "undefined", { optionalIn: true });
const _void = _undefined;
export const any = () => make("any", () => true, "anything", { optionalIn: true });
export const unknown = () => make("unknown", () => true, "anything", { optionalIn: true });
export const never = () => make("never", () => false, "nothing");
export const nan = () => make("nan", (v) => Number.isNaN(v), "NaN");
export const date = () => make("date", (v) => v instanceof Date, "date");
export const int = () => number().int();
export const url = () => string().url();
export const email = () => string();
export const uuid = () => string();
export const base64 = () => string();
export const json = () => unknown();
export const iso = { datetime: () => string(), date: () => string(), time: () => string(), duration: () => string() };
export const coerce = {
  number: () => new ZodType("number", (v, p, i) => number().fn(Number(v), p, i)),
  string: () => new ZodType("string", (v) => String(v)),
  boolean: () => new ZodType("boolean", (v) => Boolean(v)),
  bigint: () => new ZodType("bigint", (v, p, i) => {
    try {
      return BigInt(v);
    } catch {
      issue(i, "invalid_type", p, "expected bigint", v);
      return v;
    }
  }),
  date: () => new ZodType("date", (v) => new Date(v)),
};

export function literal(value: unknown) {
  const values = Array.isArray(value) ? value : [value];
  return make("literal", (v) => values.includes(v), "one of " + values.map((x) => JSON.stringify(x)).join(", "), { value: values[0], values: new Set(values) });
}

function _enum(values: readonly string[] | Record<string, string | number>) {
  const list = Array.isArray(values) ? [...values] : Object.values(values);
  const e = Object.fromEntries(list.map((v) => [v, v]));
  return make("enum", (v) => list.includes(v), "one of " + list.join(", "), { options: list, enum: e, Enum: e, Values: e });
}
export const nativeEnum = _enum;

export function array(element: ZodType) {
  return new ZodType("array", (v, p, i) => {
    if (!Array.isArray(v)) {
      issue(i, "invalid_type", p, "expected array", v);
      return v;
    }
    return v.map((x, k) => element.fn(x, [...p, k], i));
  }, { element });
}

export function tuple(items: ZodType[], rest?: ZodType) {
  return new ZodType("tuple", (v, p, i) => {
    if (!Array.isArray(v)) {
      issue(i, "invalid_type", p, "expected tuple", v);
      return v;
    }
    return v.map((x, k) => (items[k] ?? rest ?? unknown()).fn(x, [...p, k], i));
  }, { items });
}

export function object(shape: Record<string, ZodType> = {}, mode = "strip", rest?: ZodType | null) {
  return new ZodType("object", (v, p, i) => {
    if (!isObject(v)) {
      issue(i, "invalid_type", p, "expected object", v);
      return v;
    }
    const out: Record<string, unknown> = {};
    for (const [k, s] of Object.entries(shape)) {
      const has = Object.hasOwn(v, k);
      const r = s.fn(v[k], [...p, k], i);
      if (has || r !== undefined) out[k] = r;
    }
    for (const k of Object.keys(v)) {
      if (Object.hasOwn(shape, k)) continue;
      if (rest) out[k] = rest.fn(v[k], [...p, k], i);
      else if (mode === "loose") out[k] = v[k];
      else if (mode === "strict") issue(i, "unrecognized_keys", p, `unrecognized key ${k}`, v);
    }
    return out;
  }, { shape, mode, rest: rest ?? undefined });
}
export const looseObject = (shape: Record<string, ZodType>) => object(shape, "loose");
export const strictObject = (shape: Record<string, ZodType>) => object(shape, "strict");

export function union(options: ZodType[]) {
  return new ZodType("union", (v, p, i) => {
    const all: Issue[] = [];
    for (const o of options) {
      const own: Issue[] = [];
      const r = o.fn(v, p, own);
      if (!own.length) return r;
      all.push(...own);
    }
    issue(i, "invalid_union", p, "matches none of the union's options: " + all.map((x) => x.message).join("; "), v);
    return v;
  }, { options, optionalIn: options.some((o) => o.optionalIn) });
}
export const discriminatedUnion = (_key: string, options: ZodType[]) => union(options);
export const xor = union;

export function intersection(a: ZodType, b: ZodType) {
  return new ZodType("intersection", (v, p, i) => {
    const ra = a.fn(v, p, i);
    const rb = b.fn(v, p, i);
    return isObject(ra) && isObject(rb) ? { ...ra, ...rb } : ra;
  }, { left: a, right: b });
}

export function record(keyOrValue: ZodType, value?: ZodType) {
  const key = value ? keyOrValue : string();
  const val = value ?? keyOrValue;
  return new ZodType("record", (v, p, i) => {
    if (!isObject(v)) {
      issue(i, "invalid_type", p, "expected record", v);
      return v;
    }
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      key.fn(k, [...p, k], i);
      out[k] = val.fn(x, [...p, k], i);
    }
    return out;
  }, { keyType: key, valueType: val });
}

export function map(k: ZodType, v: ZodType) {
  return make("map", (x) => x instanceof Map, "map", { keyType: k, valueType: v });
}

export function set(v: ZodType) {
  return make("set", (x) => x instanceof Set, "set", { valueType: v });
}

export function lazy(get: () => ZodType) {
  return new ZodType("lazy", (v, p, i) => get().fn(v, p, i));
}

export function preprocess(f: (v: any, ctx: any) => unknown, s: ZodType) {
  return new ZodType("pipe", (v, p, i) => s.fn(f(v, ctxFor(v, p, i)), p, i), { inner: s, optionalIn: s.optionalIn });
}

export function custom(check?: (v: any) => unknown, msg?: any) {
  return new ZodType("custom", (v, p, i) => {
    if (check && !check(v)) issue(i, "custom", p, (typeof msg === "string" ? msg : msg?.message) ?? "invalid input", v);
    return v;
  });
}

function _instanceof(c: new (...a: any[]) => unknown) {
  return make("instanceof", (v) => v instanceof c, "an instance of " + c.name);
}

export const optional = (s: ZodType) => s.optional();
export const nullable = (s: ZodType) => s.nullable();
export const nullish = (s: ZodType) => s.nullish();

export const safeParse = (s: ZodType, v: unknown) => s.safeParse(v);
export const parse = (s: ZodType, v: unknown) => s.parse(v);
export const safeParseAsync = async (s: ZodType, v: unknown) => s.safeParse(v);
export const parseAsync = async (s: ZodType, v: unknown) => s.parse(v);

// What only a server or a client does with a schema: no view does it.
export function toJSONSchema(): never {
  throw new Error("JSON Schema conversion is not part of the views' schema library");
}
export const fromJSONSchema = toJSONSchema;

export const config = (_c?: unknown) => ({});
export const prettifyError = (e: ZodError) => e.message;
export const globalRegistry = { add() {}, get() {}, has: () => false };
export const ZodIssueCode = {
  custom: "custom", invalid_type: "invalid_type", invalid_union: "invalid_union", invalid_value: "invalid_value",
  too_big: "too_big", too_small: "too_small", unrecognized_keys: "unrecognized_keys", invalid_format: "invalid_format",
};

export { _enum as enum, _null as null, _undefined as undefined, _void as void, _instanceof as instanceof };
export { ZodType as ZodSchema, ZodType as ZodObject, ZodType as ZodTypeAny };

// The namespace the SDK imports as { z }.
export * as z from "./zod-lite";
