import { z } from 'zod';
import { errorResponse } from './errors.ts';
import { badRequest, detailsOf, isObject, jsonBody, type RequestBody } from './json-body.ts';
import { pageLimit } from './moderation-queue.ts';
import { ok, type SandboxResponse } from './response.ts';
import type { ModerationState, StoredRule } from './state.ts';

// The moderation rules on the chat host (live-api-notes.md, "Moderation"): the list, one rule,
// its replacement (PUT), and its revisions. Every change makes a new revision,
// `<appId>_<ruleId>_<n+1>`, and keeps the old ones; the revisions list has them all, the current
// one `active`. A rule is created or deleted only in the seed here (the app does neither).

/** The rule as served: its revision named `<appId>_<ruleId>_<n>`. */
export function servedRule(rule: StoredRule, appId: string): Record<string, unknown> {
  const { revision, ...fields } = rule;
  return { ...fields, revisionId: revisionIdOf(appId, rule.id, revision) };
}

export function revisionIdOf(appId: string, ruleId: string, revision: number): string {
  return `${appId}_${ruleId}_${revision}`;
}

/** The rule as it stands: its latest revision. */
export function currentRule(
  state: ModerationState,
  id: string | undefined,
): StoredRule | undefined {
  const revisions = id === undefined ? undefined : state.rules.get(id);
  return revisions?.[revisions.length - 1];
}

/** `limit` is typed as text by the service; the same check as the queues'. */
export function listRules(state: ModerationState, query: Record<string, string>, appId: string) {
  const limit = pageLimit(query);
  if (!limit.ok) return limit.response;
  const rules = [...state.rules.keys()].flatMap((id) => {
    const rule = currentRule(state, id);
    return rule === undefined ? [] : [servedRule(rule, appId)];
  });
  const data = rules.slice(0, limit.limit);
  return ok({ data, meta: { current: { limit: limit.limit, count: data.length } } });
}

export function getRule(state: ModerationState, id: string | undefined, appId: string) {
  const rule = currentRule(state, id);
  if (rule === undefined) return errorResponse('ERR_RULE_NOT_FOUND');
  return ok({ data: servedRule(rule, appId) });
}

/** Every revision, newest first; only the current one `active` (the rule's own state aside). */
export function listRevisions(state: ModerationState, id: string | undefined, appId: string) {
  const revisions = id === undefined ? undefined : state.rules.get(id);
  if (revisions === undefined) return errorResponse('ERR_RULE_NOT_FOUND');
  const last = revisions.length - 1;
  const data = revisions
    .map((rule, i) => ({ ...servedRule(rule, appId), active: i === last }))
    .reverse();
  return ok({ data });
}

/** What a PUT carries: the whole rule but its times and revision (description may be left out). */
const RuleBodySchema = z.strictObject({
  id: z.string().regex(/^\S{1,100}$/, 'The id is at most 100 characters, without spaces.'),
  name: z.string().trim().min(1, 'The name is required.').max(100),
  description: z.string().max(255).optional(),
  enabled: z.boolean('enabled must be true or false.'),
  action: z.array(z.string().min(1)).min(1, 'Name at least one action.'),
  filters: z.array(z.unknown(), 'filters must be a list.'),
  conditions: z.array(z.unknown()).min(1, 'Name at least one condition.'),
});
export type RuleChange = z.infer<typeof RuleBodySchema>;

export interface RuleWrite {
  id: string | undefined;
  contentType: string | undefined;
  body: RequestBody;
  now: number;
  appId: string;
}

/** Replaces the rule with the body as a new revision; creates none (an unknown id is a 404). */
export function putRule(state: ModerationState, write: RuleWrite): SandboxResponse {
  const rule = currentRule(state, write.id);
  if (rule === undefined) return errorResponse('ERR_RULE_NOT_FOUND');
  const body = jsonBody(write.contentType, write.body);
  if (!body.ok) return body.response;
  if (!isObject(body.value)) return badRequest('body', 'The request body must be a JSON object.');
  const parsed = RuleBodySchema.safeParse(body.value);
  if (!parsed.success) {
    return errorResponse('ERR_BAD_REQUEST', { details: detailsOf(parsed.error.issues) });
  }
  if (parsed.data.id !== rule.id) return badRequest('id', 'The id must be the rule of the path.');
  return ok({ data: servedRule(reviseRule(state, rule.id, parsed.data, write.now), write.appId) });
}

/**
 * A new revision of the rule with `change` on top, stored as the current one: what a PUT does,
 * and what an edit in CometChat's dashboard does (the stand-in's `editRule`). An edit that leaves
 * the description out unsets it, as the whole rule is replaced.
 */
export function reviseRule(
  state: ModerationState,
  id: string,
  change: Omit<RuleChange, 'id'>,
  now: number,
): StoredRule {
  const revisions = state.rules.get(id);
  const rule = revisions?.[revisions.length - 1];
  if (revisions === undefined || rule === undefined) throw new Error(`moderation: no rule "${id}"`);
  const { description, ...rest } = change;
  const next: StoredRule = {
    ...rest,
    ...(description === undefined ? {} : { description }),
    id,
    active: change.enabled,
    default: rule.default,
    revision: rule.revision + 1,
    createdAt: rule.createdAt,
    updatedAt: Math.max(now, rule.updatedAt),
  };
  revisions.push(next);
  return next;
}

/**
 * A rule changed as someone would change it in CometChat's dashboard: `change` on top of the rule
 * as it stands, a new revision, no request seen by the stand-in. For the app's daily check of the
 * revisions. Throws for an unknown rule. Answers the rule as now served.
 */
export function editRule(
  state: ModerationState,
  id: string,
  change: Partial<Omit<RuleChange, 'id'>>,
  context: { now: number; appId: string },
): Record<string, unknown> {
  const rule = currentRule(state, id);
  if (rule === undefined) throw new Error(`moderation: no rule "${id}"`);
  const { id: _id, revision: _revision, createdAt: _c, updatedAt: _u, ...fields } = rule;
  const next = reviseRule(state, id, { ...fields, ...change }, context.now);
  return servedRule(next, context.appId);
}
