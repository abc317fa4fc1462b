import { context, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';

/**
 * What the app can do, as a message. Pure. With a `problem` (a command that could not be read),
 * the message leads with it and, given a `ref`, the reference that finds its log line.
 */
export function helpMessage(
  problem?: string,
  ref?: string,
  apps: readonly string[] = [],
): SlackMessage {
  // `<` and `>` open a link or mention in mrkdwn, even inside a code span: written as entities.
  const several = apps.length > 1;
  const usage = [
    "`/cometchat roles [page]` - list the app's roles, with buttons to page and edit",
    "`/cometchat perms &lt;role&gt;` - edit a role's permissions (alias `permissions`)",
    '`/cometchat call &lt;sessionId&gt; [as &lt;uid&gt;]` - look up a call; `as` acts on behalf of a user',
    '`/cometchat calls [&lt;uid&gt;] [filters] [as &lt;uid&gt;]` - find calls, newest first; filters in any order: `status:ongoing|ended|unanswered|rejected|initiated|canceled`, `type:audio|video`, `mode:call|meet|presenter`, `to:user|group`, `recorded`, `transcribed`, `since:30m|2h|3d|2026-11-20`, `until:` (same forms; days are UTC)',
    '`/cometchat audit [role] [page]` - recent permission changes, newest first',
    '`/cometchat apps` - the CometChat apps this install serves, and whether their keys work',
    '`/cometchat approvals` - the permission changes waiting for your approval (when an app asks for approvals)',
    '`/cometchat help` - this message',
  ];
  const choosing = several
    ? [
        section(
          `Put an app's name first to choose it: \`/cometchat ${apps[1]} roles\`. Without one, the channel's default app is used, else \`${apps[0]}\`. Apps: ${apps.map((a) => `\`${a}\``).join(', ')}. After a change is applied to one app, its result offers *Apply the same change to* each other app that has the role: that app's own review, confirmed before anything is sent.`,
        ),
      ]
    : [];
  return {
    text: problem
      ? `${problem} Try /cometchat help.${ref ? ` (ref ${ref})` : ''}`
      : 'CometChat ops: roles, perms, call, calls, audit, apps, approvals, help.',
    blocks: [
      ...(problem ? [section(`:warning: ${problem}`)] : []),
      ...(problem && ref ? [context([`Reference: \`${ref}\``])] : []),
      header('CometChat ops'),
      section(usage.join('\n')),
      ...choosing,
      context([
        'Replies are visible only to you; use *Share in channel* on a reply to show it to everyone. The shortcuts *Look up call* (on a message) and *Look up a call* (anywhere) find calls too.',
      ]),
    ],
  };
}
