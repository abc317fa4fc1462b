import { MAX_ROLE_DESCRIPTION, MAX_ROLE_NAME } from '../../cometchat/id-rules.ts';
import { code } from '../../slack/mrkdwn.ts';
import { roleWord } from '../command.ts';
import { Refusal } from '../feature.ts';
import { PRESETS, presetNamed } from './presets.ts';

// `/cometchat [app] role ...`: making, renaming, describing and deleting a role, read from the
// words typed. Each becomes a review (role-changes.ts); nothing is sent from here.

export const ROLE_USAGE =
  '`/cometchat role create &lt;id&gt; [from &lt;role&gt; | preset &lt;preset&gt;] [&lt;name&gt;]`, `role rename &lt;id&gt; &lt;name&gt;`, `role describe &lt;id&gt; [&lt;text&gt;]`, `role delete &lt;id&gt;`';

export type RoleWords =
  | {
      kind: 'create';
      role: string;
      name: string;
      /** The role whose known permissions the new one gets. */
      from?: string | undefined;
      /** The shipped preset it gets instead. */
      preset?: string | undefined;
    }
  | { kind: 'rename'; role: string; name: string }
  /** An empty description removes it. */
  | { kind: 'describe'; role: string; description: string }
  | { kind: 'delete'; role: string };

/** The sentence for deleting `default`, before anything is asked of CometChat. */
export const DEFAULT_STAYS =
  'The role `default` cannot be deleted: CometChat keeps it for every user given no other role. Nothing was sent.';

const usage = () => new Refusal(`Usage: ${ROLE_USAGE}.`);

/** The words after `role`. Pure. */
export function parseRoleWords(words: readonly string[]): RoleWords | Refusal {
  const [verb, id, ...rest] = words;
  if (verb === undefined || id === undefined) return usage();
  const role = roleWord(id);
  if (role instanceof Refusal) return role;
  switch (verb.toLowerCase()) {
    case 'create':
      return createWords(role, rest);
    case 'rename':
      return textWord(rest.join(' '), MAX_ROLE_NAME, 'A name', (name) =>
        name === '' ? usage() : { kind: 'rename', role, name },
      );
    case 'describe':
      return textWord(rest.join(' '), MAX_ROLE_DESCRIPTION, 'A description', (description) => ({
        kind: 'describe',
        role,
        description,
      }));
    case 'delete':
      if (rest.length > 0) return usage();
      return role === 'default' ? new Refusal(DEFAULT_STAYS) : { kind: 'delete', role };
    default:
      return usage();
  }
}

/** `create <id> [from <role> | preset <preset>] [<name>]`: the name is the id when none. */
function createWords(role: string, rest: readonly string[]): RoleWords | Refusal {
  const [how, source, ...name] = rest;
  const named = (words: readonly string[]) =>
    textWord(words.join(' '), MAX_ROLE_NAME, 'A name', (text) => text || role);
  if (how?.toLowerCase() === 'from' && source !== undefined) {
    const from = roleWord(source);
    if (from instanceof Refusal) return from;
    const text = named(name);
    return text instanceof Refusal ? text : { kind: 'create', role, name: text, from };
  }
  if (how?.toLowerCase() === 'preset' && source !== undefined) {
    const preset = presetNamed(source);
    if (!preset) {
      return new Refusal(
        `There is no preset ${code(source)}; the presets are ${PRESETS.map((p) => code(p.name)).join(', ')}.`,
      );
    }
    const text = named(name);
    return text instanceof Refusal
      ? text
      : { kind: 'create', role, name: text, preset: preset.name };
  }
  const text = named(rest);
  return text instanceof Refusal ? text : { kind: 'create', role, name: text };
}

/** A name or description as typed: trimmed, within CometChat's length, then made into words. */
function textWord<T>(
  text: string,
  max: number,
  what: string,
  make: (text: string) => T | Refusal,
): T | Refusal {
  const trimmed = text.trim();
  if (trimmed.length > max) return new Refusal(`${what} is at most ${max} characters.`);
  return make(trimmed);
}
