// Built-in verifiers for `revise()` (docs/revise.md §1): a Zod schema, a JSON Schema, or a
// constraint family with one of its cases (the lab's verifiers, exact reports included). The
// families themselves live in revloop (`revloop/core/verify`: some need data files such as Punkt's);
// this package takes a family object. `zod` and `ajv` are optional peer dependencies: nothing here
// imports them until asked, and a verifier that needs one says so before any model call (`ready`).
import { UsageError } from '../errors.ts';
import type { FamilyCase, FamilyLike, VerifyFunction, VerifyResult, Violation } from './revise-types.ts';

/** The JSON text of a draft: the draft itself, or the inside of one surrounding code fence. */
export function jsonText(draft: string): string {
  const m = /^\s*```[a-zA-Z0-9_-]*\s*\n([\s\S]*?)\n?```\s*$/.exec(draft);
  return (m ? m[1] : draft).trim();
}

/** Parses the draft as JSON; a violation `invalid_json` when it does not parse. */
export function parseJsonDraft(draft: string): { ok: true; value: unknown } | { ok: false; violation: Violation } {
  try {
    return { ok: true, value: JSON.parse(jsonText(draft)) };
  } catch (e) {
    return { ok: false, violation: { code: 'invalid_json', message: `the output is not valid JSON (${(e as Error).message})` } };
  }
}

/** What revloop needs of a Zod schema (v3 or v4): `safeParse`. */
export interface ZodLike {
  safeParse(
    value: unknown,
  ):
    | { success: true; data?: unknown }
    | { success: false; error: { issues: ReadonlyArray<{ code?: string; message: string; path?: ReadonlyArray<PropertyKey> }> } };
}

/** Every issue Zod reports on the draft parsed as JSON, one violation each (code and path as Zod gives them). */
export function zodVerifier(schema: ZodLike): VerifyFunction {
  if (!schema || typeof schema.safeParse !== 'function')
    throw new UsageError('zodVerifier: expected a Zod schema (an object with safeParse)', { option: 'verify' });
  return (draft) => {
    const parsed = parseJsonDraft(draft);
    if (!parsed.ok) return { ok: false, violations: [parsed.violation], score: Infinity };
    const r = schema.safeParse(parsed.value);
    if (r.success) return { ok: true, violations: [], score: 0 };
    const violations = r.error.issues.map((i): Violation => ({
      code: i.code ?? 'invalid',
      message: i.message,
      path: (i.path ?? []).map((p) => (typeof p === 'symbol' ? String(p) : p)) as Array<string | number>,
    }));
    return { ok: false, violations, score: violations.length };
  };
}

// A specifier bundlers leave alone: the peer is optional, and resolving it at build time would fail without it.
const AJV = 'ajv';

type AjvErrors = Array<{ keyword: string; instancePath: string; message?: string; params?: unknown }>;
type Validate = ((v: unknown) => boolean) & { errors?: AjvErrors | null };

/** A verifier that needs something loaded first (an optional peer): `revise()` awaits `ready` before any model call. */
export type PreparedVerifyFunction = VerifyFunction & { ready?: () => Promise<void> };

/**
 * Every error Ajv reports (all errors) on the draft parsed as JSON. Needs the optional peer `ajv`
 * (8): when it is missing, `revise()` throws a UsageError before any model call.
 */
export function jsonSchemaVerifier(schema: Record<string, unknown> | boolean): PreparedVerifyFunction {
  let validate: Promise<Validate> | null = null;
  const compile = async (): Promise<Validate> => {
    let mod: { default?: unknown };
    try {
      mod = (await import(/* webpackIgnore: true */ /* @vite-ignore */ AJV)) as { default?: unknown };
    } catch {
      throw new UsageError('jsonSchemaVerifier needs the optional peer dependency ajv: npm install ajv@8', { option: 'verify' });
    }
    const Ajv = ((mod.default as { default?: unknown })?.default ?? mod.default) as new (o: Record<string, unknown>) => {
      compile(s: unknown): Validate;
    };
    return new Ajv({ allErrors: true, strict: false }).compile(schema);
  };
  const load = () => (validate ??= compile());
  const fn = async (draft: string): Promise<VerifyResult> => {
    const v = await load();
    const parsed = parseJsonDraft(draft);
    if (!parsed.ok) return { ok: false, violations: [parsed.violation], score: Infinity };
    if (v(parsed.value)) return { ok: true, violations: [], score: 0 };
    const violations = (v.errors ?? []).map((e): Violation => ({
      code: e.keyword,
      message: `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`,
      path: e.instancePath,
    }));
    return { ok: false, violations, score: violations.length };
  };
  return Object.assign(fn, {
    ready: async () => {
      // A failed load is not kept: the caller may install ajv and try again.
      await load().catch((e) => {
        validate = null;
        throw e;
      });
    },
  });
}

/** A family's verifier on one case, with what revise() takes from the family: its initial prompt, version and token limit. */
export type FamilyVerifyFunction = VerifyFunction & { initialPrompt: string; version: string; maxTokens: number; family: FamilyLike };

/**
 * A family's verifier on one case: the family's state, its exact report as the
 * feedback, its energy as the score, one violation per violated component of the violation vector.
 */
export function familyVerifier(family: FamilyLike, c: FamilyCase, variant = 'baseline'): FamilyVerifyFunction {
  const f = family;
  if (!f || typeof f !== 'object' || typeof f.verify !== 'function')
    throw new UsageError(
      "verify.family must be a family object (getFamily(name) from 'revloop/core/verify'), or import revise from 'revloop/revise' to name one",
      { option: 'verify' },
    );
  const problems = f.validateCase(c);
  if (problems.length) throw new UsageError(`case ${c.id}: ${problems.map(([k, p]) => `${k}: ${p}`).join('; ')}`, { option: 'verify' });
  const fn = (draft: string): VerifyResult => {
    const state = f.verify(draft, c);
    const violations: Violation[] = [];
    state.violation_vector.forEach((v, i) => {
      if (v !== 0) violations.push({ code: `v${i}`, message: `component ${i} of the violation vector is ${v}` });
    });
    return { ok: state.joint_success === true, violations, score: f.energy(state), feedback: f.feedback(state, c, variant), state };
  };
  return Object.assign(fn, { initialPrompt: f.initialPrompt(c, variant), version: f.version, maxTokens: f.maxNewTokens(c), family: f });
}
