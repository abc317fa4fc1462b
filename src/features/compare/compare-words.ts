import { code } from '../../slack/mrkdwn.ts';
import { roleWord } from '../command.ts';
import { Refusal } from '../feature.ts';

// What `/cometchat compare ...` says, read into what its run needs. Pure: every rule here is
// tested alone. Which app names are configured is the run's to check: the words alone cannot
// tell.

export const COMPARE_USAGE =
  '`/cometchat [app] compare &lt;role&gt; &lt;other role&gt;` or `/cometchat compare &lt;role&gt; &lt;app&gt; &lt;other app&gt;`';

export type CompareWords =
  /** Two roles of the app the command is for. */
  | { kind: 'roles'; role: string; other: string }
  /** One role in two configured apps, named as typed (lower-cased, as app names are). */
  | { kind: 'apps'; role: string; app: string; other: string };

/** `compare <role> <other role>`, `compare <role> <app> <other app>`. */
export function parseCompareWords(words: readonly string[]): CompareWords | Refusal {
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
