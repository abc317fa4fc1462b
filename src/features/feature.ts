import type { App, SlashCommand } from '@slack/bolt';
import type { KnownBlock } from '@slack/types';
import type { Logger } from 'pino';
import type { CometChatApp } from '../apps/apps.ts';
import type { Respond } from '../slack/deliver.ts';
import type { AppDeps } from './deps.ts';

// What a feature is to the rest of the app: the listeners it registers with Bolt and the
// subcommands of `/cometchat` it answers. The list of features is features/index.ts; adding a
// feature is a folder and a line there.

export interface Feature {
  /** Its subcommands of `/cometchat`, in the order help lists them. */
  readonly subcommands: readonly Subcommand[];
  /** The CometChat dashboard links it shows as cards when one is posted (features/unfurl.ts). */
  readonly unfurlers?: readonly LinkUnfurler[];
  /** Registers its buttons, forms, shortcuts and events with Bolt, by their ids. */
  register(app: App, deps: AppDeps): void;
  /** Work done every minute on each replica; each job is safe to run on several at once. */
  periodic?(deps: AppDeps, log: Logger): Promise<unknown>;
  /** Done once when the app has started, never holding the start (a check, logged). */
  atStart?(deps: AppDeps, log: Logger): Promise<unknown>;
}

/** What a subcommand runs with. */
export interface CommandContext {
  /** The command as Slack sent it (acknowledged already). */
  body: SlashCommand;
  /**
   * Replies to the person (Bolt's `respond`, with its fallbacks): after a progress message, the
   * reply replaces that message.
   */
  respond: Respond;
  /** The app named in the command, else the channel's default, else the first. */
  app: CometChatApp;
  deps: AppDeps;
}

/** Words that cannot be read: the sentence that says why, shown with the usage. */
export class Refusal {
  constructor(readonly problem: string) {}
}

/** One subcommand as its feature writes it: `parse` is pure, so its rules are tested alone. */
export interface SubcommandSpec<P> {
  /** The words that name it (`perms`, `permissions`); the first is its name. */
  names: readonly [string, ...string[]];
  /**
   * Its line in help: the syntax in a code span, a dash, what it does. mrkdwn: `<` and `>` open a
   * link or mention even inside a code span, so they are written `&lt;` and `&gt;`.
   */
  usage: string;
  /** The words after its name. */
  parse(words: readonly string[]): P | Refusal;
  /**
   * For a subcommand that waits on CometChat: the line the acknowledgement shows at once (what
   * it is doing, visible only to the person), which its answer or failure then replaces.
   * Undefined for words it answers another way (a modal it opens at once).
   */
  progress?(parsed: P, ctx: CommandContext): string | undefined;
  run(parsed: P, ctx: CommandContext): Promise<void>;
}

/** Words read: what they say (for the log and tests), and the subcommand's steps, bound to it. */
export interface ReadWords {
  parsed: unknown;
  progress?: ((ctx: CommandContext) => string | undefined) | undefined;
  run(ctx: CommandContext): Promise<void>;
}

/** A subcommand as the router holds it: its words read into something to run, or a refusal. */
export interface Subcommand {
  readonly names: readonly [string, ...string[]];
  readonly usage: string;
  read(words: readonly string[]): Refusal | ReadWords;
}

/** A spec made into a subcommand; what its parse returns stays between its parse and its run. */
export function subcommand<P>(spec: SubcommandSpec<P>): Subcommand {
  return {
    names: spec.names,
    usage: spec.usage,
    read(words) {
      const parsed = spec.parse(words);
      if (parsed instanceof Refusal) return parsed;
      const { progress } = spec;
      return {
        parsed,
        progress: progress && ((ctx) => progress(parsed, ctx)),
        run: (ctx) => spec.run(parsed, ctx),
      };
    },
  };
}

/**
 * One kind of dashboard link (`app.cometchat.com/app/<appId>/<section>/<id>`) made into a card.
 * The unfurl router has checked the app and the person already; the card is what anyone in the
 * channel sees, so it holds what a viewer may see and nothing a button would change.
 */
export interface LinkUnfurler {
  /** The path word before the id: `roles`, `users`, `calls`. */
  readonly section: string;
  /** The id as the link names it, decoded: a refusal sentence when it cannot be one. */
  idProblem(id: string): string | undefined;
  card(id: string, ctx: UnfurlContext): Promise<UnfurlCard>;
}

/** What an unfurler runs with. */
export interface UnfurlContext {
  app: CometChatApp;
  /** Who posted the link (a viewer: checked before any card is made). */
  userId: string;
  deps: AppDeps;
}

/** A link's card: the blocks Slack shows under the message. */
export interface UnfurlCard {
  blocks: KnownBlock[];
}
