import type { KnownBlock } from '@slack/types';
import { valueInWords } from '../../cometchat/catalogue.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { inApp, valueSourceText } from '../../replies/sentences.ts';
import { context, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { code, joinedUpTo, truncate } from '../../slack/mrkdwn.ts';
import type { CanConclusion, CanExplanation, CanLayer, CanStep } from './can.ts';

// The walk of "can <uid> <action> [in <guid>]" as a message: one line per step, each with its
// value and where that came from (in a group, the layer too), then the conclusion in one line.
// Pure.

const VERDICT_MARK: Record<CanStep['verdict'], string> = {
  passes: ':white_check_mark:',
  denies: ':no_entry:',
  unknown: ':grey_question:',
  'not-checked': ':heavy_minus_sign:',
};

/** How a step's layer is named before its rule, and where a denial in it came from. */
const LAYER_LABEL: Record<CanLayer, string> = { role: 'Role', group: 'Group', scope: 'Scope' };
export const LAYER_PLACE: Record<CanLayer, string> = {
  role: "in the role's permissions",
  group: 'in the group',
  scope: "in the member's scope's permissions in the group",
};

/** What the documented defaults would answer, when the walk cannot tell. */
export const byDefaultsSentence = (answer: 'allowed' | 'denied') =>
  `By the documented defaults it would be ${answer}.`;

/** A scope's default as the app's CometChat lists it in the scope's definitions. */
const LISTED_DEFAULT = 'the default CometChat lists for the scope';

function sourceText({ source, layer }: CanStep): string {
  if (!source) return 'from CometChat';
  switch (source.kind) {
    case 'last-update':
      return valueSourceText(source, layer === 'scope' ? 'scope' : 'role');
    case 'default':
      return layer === 'scope' && source.listed ? LISTED_DEFAULT : valueSourceText(undefined);
    case 'unknown':
      return 'unknown';
  }
}

export function stepLine(step: CanStep): string {
  const value =
    step.key === undefined
      ? ''
      : ` ${permissionKeyText(step.key)}${step.verdict === 'not-checked' ? '' : ` = ${code(truncate(valueInWords(step.value), 80))}`}`;
  const source = step.verdict === 'not-checked' ? '' : ` (${sourceText(step)})`;
  const layer = step.layer ? `${LAYER_LABEL[step.layer]} · ` : '';
  return `${VERDICT_MARK[step.verdict]} *${layer}${step.rule}*${value}${source}: ${step.because}`;
}

export function conclusionLine(conclusion: CanConclusion): string {
  switch (conclusion.kind) {
    case 'allowed':
      return ':white_check_mark: *Allowed.*';
    case 'denied':
      return conclusion.key === undefined
        ? `:no_entry: *Denied*${conclusion.layer ? ` ${LAYER_PLACE[conclusion.layer]}` : ''}: ${conclusion.why}.`
        : `:no_entry: *Denied by* ${permissionKeyText(conclusion.key)} = ${code(truncate(valueInWords(conclusion.value), 80))}${conclusion.layer ? ` ${LAYER_PLACE[conclusion.layer]}: ${conclusion.why}` : ''}.`;
    case 'cannot-tell': {
      const defaults = conclusion.byDefaults ? ` ${byDefaultsSentence(conclusion.byDefaults)}` : '';
      return `:grey_question: *Cannot tell*: ${conclusion.why}.${defaults}`;
    }
  }
}

export interface CanQuestion {
  uid: string;
  action: string;
  target?: string | undefined;
  /** The group the question is asked in. */
  group?: string | undefined;
  appName?: string | undefined;
}

export function canMessage(question: CanQuestion, explanation: CanExplanation): SlackMessage {
  const towards = question.target ? ` towards ${code(question.target)}` : '';
  const inGroup = question.group ? ` in group ${code(question.group)}` : '';
  const title = `Can ${question.uid} ${question.action}${question.group ? ` in ${question.group}` : ''}?`;
  const walk = question.group
    ? "the walk of CometChat's two layers: the role, then the group and the member's scope"
    : "the walk CometChat's RBAC documents; keys marked – depend on the message or group";
  const lines = explanation.steps.map(stepLine);
  const blocks: KnownBlock[] = [
    header(truncate(title, 150)),
    section(joinedUpTo(lines, '\n', 2900)),
    section(conclusionLine(explanation.conclusion)),
    context([
      `${code(question.uid)} ${code(question.action)}${towards}${inGroup}${inApp(question.appName)} · ${walk}`,
    ]),
  ];
  return {
    response_type: 'ephemeral',
    text: `Can ${code(question.uid)} ${code(question.action)}${towards}${inGroup}? ${conclusionLine(explanation.conclusion)}`,
    blocks,
  };
}
