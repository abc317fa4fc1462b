import type { Button, KnownBlock } from '@slack/types';
import type { ValueWriter } from '../../apps/apps.ts';
import {
  conditionsSummary,
  fieldPlainText,
  RULE_FIELDS,
  type RuleField,
  ruleChangeLines,
  ruleDifferences,
  ruleValues,
} from '../../changes/index.ts';
import type { ModerationRule } from '../../cometchat/moderation-model.ts';
import { counted } from '../../replies/sentences.ts';
import {
  actions,
  button,
  context,
  divider,
  header,
  rawText,
  section,
  TABLE_ROWS,
  type TableCell,
  table,
} from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { ACTIONS } from '../../slack/ids.ts';
import { code, escapeMrkdwn, truncate } from '../../slack/mrkdwn.ts';

// The moderation rules as messages: a page of the list, two apps' rules compared, and the daily
// check's report of rules changed outside the app. Pure.

/** Rules per page: CometChat keeps at most 25 an app, so three pages at most. */
export const RULES_PER_PAGE = 10;
/** The most "Promote to" buttons a rule shows (an actions block holds 25; a page stays short). */
const PROMOTE_BUTTONS = 5;

export interface RuleListOptions {
  /** The app's name, shown when several apps are configured. */
  appName?: string | undefined;
  /** The other configured apps a rule can be promoted to. */
  others: readonly string[];
  /** Writes a button's value, signed for the app. */
  write: ValueWriter;
}

/** A rule in a few lines of mrkdwn: name, id, state, actions, conditions, revision. */
export function ruleLines(rule: ModerationRule): string {
  const state = [
    rule.enabled ? 'enabled' : 'disabled',
    rule.active ? 'active' : 'not active',
    ...(rule.isDefault ? ['one of CometChat’s own'] : []),
  ].join(' · ');
  const said = rule.actions.length > 0 ? rule.actions.map(code).join(', ') : '_no action_';
  return [
    `*${escapeMrkdwn(truncate(rule.name || rule.id, 100))}* ${code(rule.id)} · ${state}`,
    `Action: ${said}`,
    `When: ${escapeMrkdwn(conditionsSummary(rule.conditions, rule.filters))}`,
    `Revision ${code(rule.revisionId)}`,
  ].join('\n');
}

/** A page of the app's rules, each with _Promote to_ the other apps, then page buttons. */
export function rulesListMessage(
  rules: readonly ModerationRule[],
  page: number,
  options: RuleListOptions,
): SlackMessage {
  const pages = Math.max(1, Math.ceil(rules.length / RULES_PER_PAGE));
  const shown = rules.slice((page - 1) * RULES_PER_PAGE, page * RULES_PER_PAGE);
  const title = options.appName ? `Moderation rules · ${options.appName}` : 'Moderation rules';
  const blocks: KnownBlock[] = [
    header(title),
    context([`Page ${Math.min(page, pages)} of ${pages} · ${counted(rules.length, 'rule')}`]),
  ];
  if (shown.length === 0) {
    blocks.push(
      section(
        rules.length === 0
          ? 'This app has no moderation rules.'
          : `There is no page ${page}; the last page is ${pages}.`,
      ),
    );
  }
  for (const rule of shown) {
    blocks.push(section(ruleLines(rule)));
    const promote = promoteButtons(rule.id, options);
    if (promote.length > 0) blocks.push(actions(promote));
  }
  const nav = navigation(page, pages, options.write);
  if (nav.length > 0) blocks.push(divider(), actions(nav));
  return {
    text: `${escapeMrkdwn(title)}, page ${page} of ${pages}: ${shown.map((r) => code(r.id)).join(', ')}`,
    blocks,
  };
}

function promoteButtons(rule: string, { others, write }: RuleListOptions): Button[] {
  return others
    .slice(0, PROMOTE_BUTTONS)
    .map((to) =>
      button(
        `Promote to ${to}`,
        `${ACTIONS.promoteRule}:${to}:${rule}`,
        write({ promoteRule: rule, to }),
      ),
    );
}

function navigation(page: number, pages: number, write: ValueWriter): Button[] {
  return [
    ...(page > 1
      ? [
          button(
            '◀ Previous',
            `${ACTIONS.rulesPage}:prev`,
            write({ page: Math.min(page - 1, pages) }),
          ),
        ]
      : []),
    ...(page < pages
      ? [button('Next ▶', `${ACTIONS.rulesPage}:next`, write({ page: page + 1 }))]
      : []),
  ];
}

/** One rule in two apps: what differs, field by field. */
export interface RuleDifference {
  id: string;
  name: string;
  fields: readonly { field: RuleField; left: string; right: string }[];
}

/** Two apps' rules compared: by id, those in one app only, and those that differ. */
export interface RulesComparison {
  onlyLeft: readonly ModerationRule[];
  onlyRight: readonly ModerationRule[];
  differing: readonly RuleDifference[];
  equal: number;
}

/** The rules of two apps, matched by id and compared field by field. Pure. */
export function compareRules(
  left: readonly ModerationRule[],
  right: readonly ModerationRule[],
): RulesComparison {
  const other = new Map(right.map((r) => [r.id, r]));
  const differing: RuleDifference[] = [];
  let equal = 0;
  for (const rule of left) {
    const there = other.get(rule.id);
    if (!there) continue;
    const fields = fieldDifferences(rule, there);
    if (fields.length === 0) equal += 1;
    else differing.push({ id: rule.id, name: rule.name, fields });
  }
  const ids = new Set(left.map((r) => r.id));
  return {
    onlyLeft: left.filter((r) => !other.has(r.id)),
    onlyRight: right.filter((r) => !ids.has(r.id)),
    differing,
    equal,
  };
}

/** The fields in which two versions of a rule differ, each side in plain words. Pure. */
export function fieldDifferences(
  left: ModerationRule,
  right: ModerationRule,
): RuleDifference['fields'] {
  const a = ruleValues(left);
  const b = ruleValues(right);
  return ruleDifferences(left, right).map((field) => ({
    field,
    left: fieldPlainText(field, a[field]),
    right: fieldPlainText(field, b[field]),
  }));
}

/** Two apps' rules compared, as a message: the compare command's words, a row per difference. */
export function rulesCompareMessage(
  apps: { left: string; right: string },
  comparison: RulesComparison,
): SlackMessage {
  const { onlyLeft, onlyRight, differing, equal } = comparison;
  const n = onlyLeft.length + onlyRight.length + differing.length;
  const rows = comparisonRows(apps, comparison);
  const shown = rows.slice(0, TABLE_ROWS - 1);
  const titleText = `Compare rules in *${escapeMrkdwn(apps.left)}* and *${escapeMrkdwn(apps.right)}*`;
  const differ = n === 1 ? '1 rule differs' : `${n} rules differ`;
  const same = `${counted(equal, 'rule')} ${equal === 1 ? 'is' : 'are'} equal`;
  const blocks: KnownBlock[] = [
    header(`Compare rules in ${apps.left} and ${apps.right}`),
    section(n === 0 ? `No rule differs: ${same}.` : `*${differ}*; ${same} and not listed.`),
    ...(shown.length > 0
      ? [
          table(['Rule', 'Field', apps.left, apps.right], shown, [
            { is_wrapped: true },
            { is_wrapped: true },
            { is_wrapped: true },
            { is_wrapped: true },
          ]),
        ]
      : []),
    ...(rows.length > shown.length
      ? [context([`…and ${rows.length - shown.length} more differences, not shown.`])]
      : []),
    context([
      'Rules are matched by id. Compared from what CometChat has now, each rule’s revision as read.',
    ]),
  ];
  return { response_type: 'ephemeral', text: `${titleText}: ${differ}, ${same}.`, blocks };
}

function comparisonRows(
  apps: { left: string; right: string },
  { onlyLeft, onlyRight, differing }: RulesComparison,
): TableCell[][] {
  const rule = (id: string, name: string) => rawText(`${name} (${id})`, 200);
  return [
    ...onlyLeft.map((r) => [
      rule(r.id, r.name),
      rawText('the rule'),
      rawText('present'),
      rawText(`not in ${apps.right}`),
    ]),
    ...onlyRight.map((r) => [
      rule(r.id, r.name),
      rawText('the rule'),
      rawText(`not in ${apps.left}`),
      rawText('present'),
    ]),
    ...differing.flatMap((d) =>
      d.fields.map((f) => [
        rule(d.id, d.name),
        rawText(f.field),
        rawText(f.left),
        rawText(f.right),
      ]),
    ),
  ];
}

/** A rule whose revision changed outside the app: its revision seen before, and now. */
export interface ChangedRule {
  before: { revisionId: string; rule?: ModerationRule | undefined };
  now: ModerationRule;
}

/** Rules that appeared or went away outside this app since the last check. */
export interface RulesAddedOrDeleted {
  added: readonly ModerationRule[];
  /** A deleted rule: its id and the last revision this app saw of it. */
  deleted: readonly { id: string; revisionId: string }[];
}

const NONE_ADDED_OR_DELETED: RulesAddedOrDeleted = { added: [], deleted: [] };

/** The daily check's post: each rule changed, added or deleted outside the app. Pure. */
export function rulesChangedPost(
  changed: readonly ChangedRule[],
  appName: string | undefined,
  { added, deleted }: RulesAddedOrDeleted = NONE_ADDED_OR_DELETED,
) {
  const where = appName ? ` in *${escapeMrkdwn(appName)}*` : '';
  const count = changed.length + added.length + deleted.length;
  const text = `:memo: ${counted(count, 'moderation rule')} changed outside this app${where} since the last check.`;
  const blocks: KnownBlock[] = [
    section(text),
    ...[...changed.map(changedBlock), ...added.map(addedBlock), ...deleted.map(deletedBlock)].slice(
      0,
      45,
    ),
  ];
  return { text, blocks };
}

function addedBlock(rule: ModerationRule): KnownBlock {
  const state = rule.enabled ? 'enabled' : 'disabled';
  return section(
    `*${escapeMrkdwn(truncate(rule.name || rule.id, 100))}* ${code(rule.id)}: added, revision ${code(rule.revisionId)} · ${state}\n${escapeMrkdwn(conditionsSummary(rule.conditions, rule.filters))}`,
  );
}

function deletedBlock(rule: { id: string; revisionId: string }): KnownBlock {
  return section(`${code(rule.id)}: deleted (the last revision seen was ${code(rule.revisionId)})`);
}

function changedBlock({ before, now }: ChangedRule): KnownBlock {
  const head = `*${escapeMrkdwn(truncate(now.name || now.id, 100))}* ${code(now.id)}: revision ${code(before.revisionId)} → ${code(now.revisionId)}`;
  if (!before.rule) {
    return section(
      `${head}\nThe revision seen before is no longer listed, so what changed cannot be said.`,
    );
  }
  const a = ruleValues(before.rule);
  const b = ruleValues(now);
  const lines = ruleChangeLines(RULE_FIELDS.map((key) => ({ key, before: a[key], after: b[key] })));
  const said =
    lines.length > 0
      ? lines.map((l) => `• ${l}`)
      : ['Its fields are the same (only the revision moved).'];
  return section([head, ...said].join('\n'));
}
