import type { KnownBlock } from '@slack/types';
import { valueInWords } from '../../cometchat/catalogue.ts';
import { permissionKeyText } from '../../replies/permission-key-text.ts';
import { inApp, valueSourceText } from '../../replies/sentences.ts';
import { context, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { code, joinedUpTo, truncate } from '../../slack/mrkdwn.ts';
import type { CanConclusion, CanExplanation, CanStep, ValueSource } from './can.ts';

// The walk of "can <uid> <action>" as a message: one line per step, each with its value and
// where that came from, then the conclusion in one line. Pure.

const VERDICT_MARK: Record<CanStep['verdict'], string> = {
  passes: ':white_check_mark:',
  denies: ':no_entry:',
  unknown: ':grey_question:',
  'not-checked': ':heavy_minus_sign:',
};

function sourceText(source: ValueSource | undefined): string {
  if (!source) return 'from CometChat';
  switch (source.kind) {
    case 'last-update':
      return valueSourceText(source);
    case 'default':
      return valueSourceText(undefined);
    case 'unknown':
      return 'unknown';
  }
}

export function stepLine(step: CanStep): string {
  const value =
    step.key === undefined
      ? ''
      : ` ${permissionKeyText(step.key)}${step.verdict === 'not-checked' ? '' : ` = ${code(truncate(valueInWords(step.value), 80))}`}`;
  const source = step.verdict === 'not-checked' ? '' : ` (${sourceText(step.source)})`;
  return `${VERDICT_MARK[step.verdict]} *${step.rule}*${value}${source}: ${step.because}`;
}

export function conclusionLine(conclusion: CanConclusion): string {
  switch (conclusion.kind) {
    case 'allowed':
      return ':white_check_mark: *Allowed.*';
    case 'denied':
      return conclusion.key === undefined
        ? `:no_entry: *Denied*: ${conclusion.why}.`
        : `:no_entry: *Denied by* ${permissionKeyText(conclusion.key)} = ${code(truncate(valueInWords(conclusion.value), 80))}.`;
    case 'cannot-tell': {
      const defaults = conclusion.byDefaults
        ? ` By the documented defaults it would be ${conclusion.byDefaults}.`
        : '';
      return `:grey_question: *Cannot tell*: ${conclusion.why}.${defaults}`;
    }
  }
}

export interface CanQuestion {
  uid: string;
  action: string;
  target?: string | undefined;
  appName?: string | undefined;
}

export function canMessage(question: CanQuestion, explanation: CanExplanation): SlackMessage {
  const towards = question.target ? ` towards ${code(question.target)}` : '';
  const title = `Can ${question.uid} ${question.action}?`;
  const lines = explanation.steps.map(stepLine);
  const blocks: KnownBlock[] = [
    header(truncate(title, 150)),
    section(joinedUpTo(lines, '\n', 2900)),
    section(conclusionLine(explanation.conclusion)),
    context([
      `${code(question.uid)} ${code(question.action)}${towards}${inApp(question.appName)} · the walk CometChat's RBAC documents; keys marked – depend on the message or group`,
    ]),
  ];
  return {
    response_type: 'ephemeral',
    text: `Can ${code(question.uid)} ${code(question.action)}${towards}? ${conclusionLine(explanation.conclusion)}`,
    blocks,
  };
}
