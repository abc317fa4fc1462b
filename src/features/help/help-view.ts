import { chunkedSections } from '../../changes/index.ts';
import { UID_CASE_SENTENCE } from '../../replies/sentences.ts';
import { context, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import type { Subcommand } from '../feature.ts';

/**
 * What the app can do, as a message. Pure. `commands` are the subcommands, in order, with their
 * usage lines.
 */
export function helpMessage(
  commands: readonly Pick<Subcommand, 'names' | 'usage'>[],
  apps: readonly string[],
): SlackMessage {
  const several = apps.length > 1;
  const choosing = several
    ? [
        section(
          `Put an app's name first to choose it: \`/cometchat ${apps[1]} roles\`. Without one, the channel's default app is used, else \`${apps[0]}\`. Apps: ${apps.map((a) => `\`${a}\``).join(', ')}. After a change is applied to one app, its result offers *Apply the same change to* each other app that has the role: that app's own review, confirmed before anything is sent.`,
        ),
      ]
    : [];
  return {
    text: `CometChat ops: ${commands.map((c) => c.names[0]).join(', ')}.`,
    blocks: [
      header('CometChat ops'),
      // Every usage line, in as few sections as Slack's 3000 characters a section allow.
      ...chunkedSections(commands.map((c) => c.usage)),
      ...choosing,
      context([
        "Replies are visible only to you; use *Share in channel* on a reply to show it to everyone. The shortcuts *Look up call* (on a message) and *Look up a call* (anywhere) find calls too, and the app's *Home* tab shows each app, your approvals and the latest changes.",
        UID_CASE_SENTENCE,
        "Who may change permissions: the people in the `EDITORS` setting (or an app's own `COMETCHAT_&lt;APP&gt;_EDITORS`), else workspace admins and owners; ask one of them, or an admin of the app, for access.",
      ]),
    ],
  };
}
