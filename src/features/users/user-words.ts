import {
  guidProblem,
  idProblem,
  storedGuid,
  storedUid,
  uidProblem,
} from '../../cometchat/id-rules.ts';
import { code } from '../../slack/mrkdwn.ts';
import { PAGE_PROBLEM, pageWord, roleWord } from '../command.ts';
import { Refusal } from '../feature.ts';
import { ACTION_KEYS } from './can.ts';
import { GROUP_ACTION_KEYS } from './can-in-group.ts';

// What `/cometchat user ...` and `/cometchat users ...` say, read into what their runs need.
// Pure: every rule here is tested alone.

export const USER_USAGE =
  '`/cometchat user &lt;uid&gt; [can &lt;action&gt; [&lt;uid&gt; | in &lt;guid&gt;] | role &lt;role&gt; | contain]`';
export const USERS_USAGE =
  '`/cometchat users [&lt;text&gt;] [role:&lt;role&gt;] [deactivated] [page:&lt;n&gt;]`';

export type UserWords =
  | { kind: 'card'; uid: string }
  | {
      kind: 'can';
      uid: string;
      action: string;
      target?: string | undefined;
      /** The group asked about (`in <guid>`), as CometChat stores its guid. */
      group?: string | undefined;
    }
  | { kind: 'role'; uid: string; role: string }
  | { kind: 'contain'; uid: string };

/** The action keys, for the sentence refusing an unknown one. */
const ACTIONS_SENTENCE = `The actions are ${ACTION_KEYS.map((key) => code(key)).join(', ')}.`;
const GROUP_ACTIONS_SENTENCE = `In a group they are ${GROUP_ACTION_KEYS.map((key) => code(key)).join(', ')}.`;

/**
 * `user <uid>`, `user <uid> can <action> [<uid> | in <guid>]`, `user <uid> role <role>`, `user
 * <uid> contain`; each uid and guid as CometChat stores it.
 */
export function parseUserWords(words: readonly string[]): UserWords | Refusal {
  const usage = new Refusal(`Usage: ${USER_USAGE}.`);
  const [typed, verb, ...rest] = words;
  if (typed === undefined) return usage;
  const problem = uidProblem(typed);
  if (problem) return new Refusal(problem);
  const uid = storedUid(typed);
  if (verb === undefined) return { kind: 'card', uid };
  switch (verb.toLowerCase()) {
    case 'can':
      return canWords(uid, rest) ?? usage;
    case 'role':
      return roleWords(uid, rest) ?? usage;
    case 'contain':
      return rest.length === 0 ? { kind: 'contain', uid } : usage;
    default:
      return usage;
  }
}

function canWords(uid: string, rest: readonly string[]): UserWords | Refusal | undefined {
  const [typed, target, ...extra] = rest;
  // `in` alone stays a uid (one may be called `in`); `in <guid>` names a group.
  const inGroup = target?.toLowerCase() === 'in' && extra.length === 1;
  if (typed === undefined || (extra.length > 0 && !inGroup)) return undefined;
  // Keys are camel case (`sendMessage`); a person may type them in any case.
  const action = ACTION_KEYS.find((key) => key.toLowerCase() === typed.toLowerCase());
  if (!action) return new Refusal(`There is no action ${code(typed)}. ${ACTIONS_SENTENCE}`);
  if (inGroup) return inGroupWords(uid, action, extra[0]);
  if (target === undefined) return { kind: 'can', uid, action };
  const problem = uidProblem(target);
  return problem ? new Refusal(problem) : { kind: 'can', uid, action, target: storedUid(target) };
}

function inGroupWords(uid: string, action: string, guid = ''): UserWords | Refusal {
  if (!GROUP_ACTION_KEYS.includes(action)) {
    return new Refusal(`${code(action)} is not done inside a group. ${GROUP_ACTIONS_SENTENCE}`);
  }
  const group = storedGuid(guid);
  const problem = guidProblem(group);
  return problem ? new Refusal(problem) : { kind: 'can', uid, action, group };
}

function roleWords(uid: string, rest: readonly string[]): UserWords | Refusal | undefined {
  const [typed, ...extra] = rest;
  if (typed === undefined || extra.length > 0) return undefined;
  const role = roleWord(typed);
  return role instanceof Refusal ? role : { kind: 'role', uid, role };
}

export interface UserSearch {
  /** A prefix of the uid or the name. */
  text?: string | undefined;
  role?: string | undefined;
  /** Only deactivated users. */
  deactivated: boolean;
  page: number;
}

/** The longest prefix a search takes: a uid is at most 100 characters. */
const MAX_SEARCH = 100;

/**
 * `users [<text>] [role:<role>] [deactivated] [page:<n>]`, in any order. A bare number is text:
 * uids are often a database's numbers.
 */
export function parseUsersWords(words: readonly string[]): UserSearch | Refusal {
  const search: UserSearch = { deactivated: false, page: 1 };
  for (const word of words) {
    const problem = readUsersWord(search, word);
    if (problem) return new Refusal(problem);
  }
  return search;
}

/** Reads one word into `search`; the problem with it, if any. */
function readUsersWord(search: UserSearch, word: string): string | undefined {
  const lower = word.toLowerCase();
  if (lower === 'deactivated') {
    search.deactivated = true;
    return undefined;
  }
  if (lower.startsWith('role:')) {
    if (search.role !== undefined) return 'Name one role at most.';
    const role = roleWord(word.slice('role:'.length));
    if (role instanceof Refusal) return role.problem;
    search.role = role;
    return undefined;
  }
  if (lower.startsWith('page:')) {
    const page = pageWord(word.slice('page:'.length));
    if (page === undefined) return PAGE_PROBLEM;
    search.page = page;
    return undefined;
  }
  if (search.text !== undefined) {
    return `Search for one uid or name prefix at most (${code(search.text)} and ${code(word)}); a page number goes after it.`;
  }
  const problem = idProblem(word, 'A search', MAX_SEARCH);
  if (problem) return problem;
  search.text = word;
  return undefined;
}
