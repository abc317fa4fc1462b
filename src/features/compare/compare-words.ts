import { GROUP_SCOPES, type GroupScope } from '../../cometchat/group-model.ts';
import { guidProblem, storedGuid } from '../../cometchat/id-rules.ts';
import { code } from '../../slack/mrkdwn.ts';
import { roleWord } from '../command.ts';
import { Refusal } from '../feature.ts';

// What `/cometchat compare ...` says, read into what its run needs. Pure: every rule here is
// tested alone. Which app names are configured is the run's to check: the words alone cannot
// tell.

export const COMPARE_USAGE =
  '`/cometchat [app] compare &lt;role&gt; &lt;other role&gt;`, `/cometchat compare &lt;role&gt; &lt;app&gt; &lt;other app&gt;` or `/cometchat compare &lt;guid&gt; &lt;scope&gt; &lt;app&gt; &lt;other app&gt;`';

export type CompareWords =
  /** Two roles of the app the command is for. */
  | { kind: 'roles'; role: string; other: string }
  /** One role in two configured apps, named as typed (lower-cased, as app names are). */
  | { kind: 'apps'; role: string; app: string; other: string }
  /** One group's scope in two configured apps (the same guid in each). */
  | { kind: 'scope'; guid: string; scope: GroupScope; app: string; other: string };

/**
 * `compare <role> <other role>`, `compare <role> <app> <other app>`, and `compare <guid> <scope>
 * <app> <other app>`: four words, the second a scope, are a group's scope (no role form has four
 * words; four words that name no scope get the usage).
 */
export function parseCompareWords(words: readonly string[]): CompareWords | Refusal {
  const scope = GROUP_SCOPES.find((s) => s === words[1]?.toLowerCase());
  if (words.length === 4 && scope) return scopeWords(words, scope);
  if (words.length !== 2 && words.length !== 3) return new Refusal(`Usage: ${COMPARE_USAGE}.`);
  const [first = '', second = '', third] = words;
  const role = roleWord(first);
  if (role instanceof Refusal) return role;
  if (third === undefined) {
    const other = roleWord(second);
    if (other instanceof Refusal) return other;
    return other === role
      ? new Refusal(`${code(role)} compared with itself differs in nothing: name two roles.`)
      : { kind: 'roles', role, other };
  }
  const app = second.toLowerCase();
  const other = third.toLowerCase();
  return app === other
    ? new Refusal('An app compared with itself differs in nothing: name two apps.')
    : { kind: 'apps', role, app, other };
}

/** `compare <guid> <scope> <app> <other app>`, the scope read already. */
function scopeWords(words: readonly string[], scope: GroupScope): CompareWords | Refusal {
  const [first = '', , third = '', fourth = ''] = words;
  const guid = storedGuid(first);
  const problem = guidProblem(guid);
  if (problem) return new Refusal(problem);
  const app = third.toLowerCase();
  const other = fourth.toLowerCase();
  return app === other
    ? new Refusal('An app compared with itself differs in nothing: name two apps.')
    : { kind: 'scope', guid, scope, app, other };
}
