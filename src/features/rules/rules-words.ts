import { ruleIdProblem } from '../../cometchat/id-rules.ts';
import { PAGE_PROBLEM, pageWord } from '../command.ts';
import { Refusal } from '../feature.ts';

// What `/cometchat [app] rules ...` says, read into what its run needs. Pure: which app names
// are configured is the run's to check (the words alone cannot tell).

export const RULES_USAGE =
  '`/cometchat [app] rules [page]`, `rules compare &lt;app&gt; &lt;other app&gt;`, `rules promote &lt;rule id&gt; &lt;other app&gt;`';

export type RulesWords =
  /** One page of the app's rules. */
  | { kind: 'list'; page: number }
  /** The rules of two configured apps, side by side (names lower-cased, as app names are). */
  | { kind: 'compare'; app: string; other: string }
  /** One rule of the app the command is for, reviewed for another app. */
  | { kind: 'promote'; rule: string; to: string };

/** The words after `rules`. */
export function parseRulesWords(words: readonly string[]): RulesWords | Refusal {
  const [first, ...rest] = words;
  const usage = new Refusal(`Usage: ${RULES_USAGE}.`);
  if (first === undefined) return { kind: 'list', page: 1 };
  if (first.toLowerCase() === 'compare') {
    const [app, other] = rest.map((w) => w.toLowerCase());
    if (rest.length !== 2 || app === undefined || other === undefined) return usage;
    return app === other
      ? new Refusal('An app compared with itself differs in nothing: name two apps.')
      : { kind: 'compare', app, other };
  }
  if (first.toLowerCase() === 'promote') return parsePromote(rest);
  if (rest.length > 0) return usage;
  const page = pageWord(first);
  return page === undefined ? new Refusal(PAGE_PROBLEM) : { kind: 'list', page };
}

/**
 * `promote <rule id> <app>`: a rule id holds no space, so more words than two are an id that
 * cannot be one (or a mistyped command), said as such.
 */
function parsePromote(words: readonly string[]): RulesWords | Refusal {
  if (words.length < 2) return new Refusal(`Usage: ${RULES_USAGE}.`);
  if (words.length > 2) {
    return new Refusal(
      'A rule id cannot contain spaces: give the id (`/cometchat rules` shows each), then the app.',
    );
  }
  const [rule = '', to = ''] = words;
  const problem = ruleIdProblem(rule);
  return problem ? new Refusal(problem) : { kind: 'promote', rule, to: to.toLowerCase() };
}
