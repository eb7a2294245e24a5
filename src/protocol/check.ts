import * as v from 'valibot';

/** One invalid field of a body: its dotted path (`filters.custom_ids.0`) and the rule it breaks. */
export interface FieldProblem {
  field: string;
  reason: string;
}

export type CheckResult<T> = { ok: true; value: T } | { ok: false; problems: FieldProblem[] };

/**
 * Checks `input` against `schema` and returns every invalid field, not just
 * the first, so one 400 can tell a caller everything to fix.
 */
export function checkWith<S extends v.GenericSchema>(schema: S, input: unknown): CheckResult<v.InferOutput<S>> {
  const result = v.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.output };
  const problems: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const issue of result.issues) {
    const field = v.getDotPath(issue) ?? '';
    // A missing key reports the object's own message; say what it means instead.
    const reason = issue.input === undefined && issue.path?.length ? 'is required' : issue.message;
    const key = `${field}\u0000${reason}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ field: field || '(body)', reason });
  }
  return { ok: false, problems };
}

/** `problems` as one line, for a 400 message: `temperature must be between 0 and 1; query is required`. */
export function describeProblems(problems: readonly FieldProblem[]): string {
  return problems.map((p) => `${p.field} ${p.reason}`).join('; ');
}
