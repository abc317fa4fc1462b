import { GROUP_SCOPES, type GroupScope } from '../../cometchat/group-model.ts';
import {
  guidProblem,
  idProblem,
  storedGuid,
  storedUid,
  uidProblem,
} from '../../cometchat/id-rules.ts';
import { code } from '../../slack/mrkdwn.ts';
import { PAGE_PROBLEM, pageWord } from '../command.ts';
import { Refusal } from '../feature.ts';

// What `/cometchat group ...` and `/cometchat groups ...` say, read into what their runs need.
// Pure: every rule here is tested alone.

export const GROUP_USAGE =
  '`/cometchat group &lt;guid&gt; [members [scope:&lt;scope&gt;] | banned | scope &lt;uid&gt; &lt;scope&gt; | kick &lt;uid&gt; | ban &lt;uid&gt; | unban &lt;uid&gt;]`';
export const GROUPS_USAGE =
  '`/cometchat groups [&lt;text&gt;] [type:public|private|password] [page:&lt;n&gt;]`';

/** What a member's change is asked as: a kick, a ban, or the ban lifted. */
export const MEMBER_ACTIONS = ['kick', 'ban', 'unban'] as const;
export type MemberAction = (typeof MEMBER_ACTIONS)[number];

export type GroupWords =
  | { kind: 'card'; guid: string }
  | { kind: 'members'; guid: string; scope?: GroupScope | undefined; page: number }
  | { kind: 'banned'; guid: string; page: number }
  | { kind: 'scope'; guid: string; uid: string; scope: GroupScope }
  | { kind: 'member'; guid: string; uid: string; action: MemberAction };

/** The one sentence for a scope that is not one of the three. */
export const SCOPE_PROBLEM = `A scope is ${GROUP_SCOPES.map((s) => code(s)).join(', ')}: one of the three CometChat has.`;

/** A scope as a person typed it (any case), or undefined when it is none of the three. Pure. */
export function scopeWord(typed: string): GroupScope | undefined {
  const lower = typed.toLowerCase();
  return GROUP_SCOPES.find((scope) => scope === lower);
}

/** A guid as a person typed it, as CometChat stores it, or the sentence refusing it. Pure. */
export function guidWord(typed: string): string | Refusal {
  const guid = storedGuid(typed);
  const problem = guidProblem(guid);
  return problem ? new Refusal(problem) : guid;
}

/**
 * `group <guid>`, `group <guid> members [scope:<scope>] [page:<n>]`, `group <guid> banned
 * [page:<n>]`, `group <guid> scope <uid> <scope>`, `group <guid> (kick | ban | unban) <uid>`.
 */
export function parseGroupWords(words: readonly string[]): GroupWords | Refusal {
  const usage = new Refusal(`Usage: ${GROUP_USAGE}.`);
  const [typed, verb, ...rest] = words;
  if (typed === undefined) return usage;
  const guid = guidWord(typed);
  if (guid instanceof Refusal) return guid;
  if (verb === undefined) return { kind: 'card', guid };
  const lower = verb.toLowerCase();
  if (lower === 'members') return membersWords(guid, rest);
  if (lower === 'banned') return bannedWords(guid, rest) ?? usage;
  if (lower === 'scope') return scopeWords(guid, rest) ?? usage;
  const action = MEMBER_ACTIONS.find((a) => a === lower);
  if (action === undefined || rest.length !== 1 || rest[0] === undefined) return usage;
  const uid = uidWord(rest[0]);
  return uid instanceof Refusal ? uid : { kind: 'member', guid, uid, action };
}

function uidWord(typed: string): string | Refusal {
  const problem = uidProblem(typed);
  return problem ? new Refusal(problem) : storedUid(typed);
}

function membersWords(guid: string, rest: readonly string[]): GroupWords | Refusal {
  const words: GroupWords = { kind: 'members', guid, page: 1 };
  for (const word of rest) {
    const lower = word.toLowerCase();
    if (lower.startsWith('scope:')) {
      const scope = scopeWord(word.slice('scope:'.length));
      if (scope === undefined) return new Refusal(SCOPE_PROBLEM);
      words.scope = scope;
    } else if (lower.startsWith('page:')) {
      const page = pageWord(word.slice('page:'.length));
      if (page === undefined) return new Refusal(PAGE_PROBLEM);
      words.page = page;
    } else {
      return new Refusal(`Usage: ${GROUP_USAGE}.`);
    }
  }
  return words;
}

function bannedWords(guid: string, rest: readonly string[]): GroupWords | Refusal | undefined {
  const [word, ...extra] = rest;
  if (extra.length > 0) return undefined;
  if (word === undefined) return { kind: 'banned', guid, page: 1 };
  if (!word.toLowerCase().startsWith('page:')) return undefined;
  const page = pageWord(word.slice('page:'.length));
  return page === undefined ? new Refusal(PAGE_PROBLEM) : { kind: 'banned', guid, page };
}

function scopeWords(guid: string, rest: readonly string[]): GroupWords | Refusal | undefined {
  const [typedUid, typedScope, ...extra] = rest;
  if (typedUid === undefined || typedScope === undefined || extra.length > 0) return undefined;
  const uid = uidWord(typedUid);
  if (uid instanceof Refusal) return uid;
  const scope = scopeWord(typedScope);
  return scope === undefined ? new Refusal(SCOPE_PROBLEM) : { kind: 'scope', guid, uid, scope };
}

/** The group types CometChat has. */
export const GROUP_TYPES = ['public', 'private', 'password'] as const;

export interface GroupSearch {
  /** A prefix of the guid or the name. */
  text?: string | undefined;
  type?: (typeof GROUP_TYPES)[number] | undefined;
  page: number;
}

/** The longest text a search takes: a guid is at most 100 characters. */
const MAX_SEARCH = 100;

/** `groups [<text>] [type:public|private|password] [page:<n>]`, in any order. */
export function parseGroupsWords(words: readonly string[]): GroupSearch | Refusal {
  const search: GroupSearch = { page: 1 };
  for (const word of words) {
    const problem = readGroupsWord(search, word);
    if (problem) return new Refusal(problem);
  }
  return search;
}

/** Reads one word into `search`; the problem with it, if any. */
function readGroupsWord(search: GroupSearch, word: string): string | undefined {
  const lower = word.toLowerCase();
  if (lower.startsWith('type:')) {
    const type = GROUP_TYPES.find((t) => t === lower.slice('type:'.length));
    if (type === undefined) return 'A group type is `public`, `private` or `password`.';
    search.type = type;
    return undefined;
  }
  if (lower.startsWith('page:')) {
    const page = pageWord(word.slice('page:'.length));
    if (page === undefined) return PAGE_PROBLEM;
    search.page = page;
    return undefined;
  }
  if (search.text !== undefined) {
    return `Search for one guid or name prefix at most (${code(search.text)} and ${code(word)}).`;
  }
  const problem = idProblem(word, 'A search', MAX_SEARCH);
  if (problem) return problem;
  search.text = word;
  return undefined;
}
