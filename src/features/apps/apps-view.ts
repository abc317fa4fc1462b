import type { KnownBlock } from '@slack/types';
import { context, header, section } from '../../slack/blocks.ts';
import type { SlackMessage } from '../../slack/deliver.ts';
import { code, escapeMrkdwn } from '../../slack/mrkdwn.ts';

/** How an app's key answered a cheap request just now. */
export type KeyCheck =
  | { state: 'working' }
  | { state: 'refused'; ref: string }
  | { state: 'unreachable'; ref: string; reason: string };

export interface AppStatus {
  name: string;
  appId: string | undefined;
  region: string | undefined;
  isDefault: boolean;
  channels: readonly string[];
  check: KeyCheck;
}

const MARK = { working: ':large_green_circle:', refused: ':red_circle:', unreachable: ':warning:' };

function checkLine(check: KeyCheck): string {
  switch (check.state) {
    case 'working':
      return 'Key works.';
    case 'refused':
      return `CometChat refused the key (ref \`${check.ref}\`).`;
    case 'unreachable':
      return `Could not check the key: ${escapeMrkdwn(check.reason)} (ref \`${check.ref}\`).`;
  }
}

/** `/cometchat apps`: every configured app, its channels and whether its key works. Pure. */
export function appsMessage(statuses: readonly AppStatus[]): SlackMessage {
  const blocks: KnownBlock[] = [header('CometChat apps')];
  for (const app of statuses) {
    const details = [
      app.appId ? `App id ${code(app.appId)}` : undefined,
      app.region ? `region ${code(app.region)}` : undefined,
      app.isDefault ? 'the default app' : undefined,
      app.channels.length > 0
        ? `default in ${app.channels.map((c) => `<#${c}>`).join(', ')}`
        : undefined,
    ].filter(Boolean);
    blocks.push(
      section(
        `${MARK[app.check.state]} *${escapeMrkdwn(app.name)}*  ${details.join(' · ')}\n${checkLine(app.check)}`,
      ),
    );
  }
  blocks.push(
    context([
      'Choose an app with `/cometchat &lt;app&gt; &lt;subcommand&gt;`, for example `/cometchat staging roles`.',
    ]),
  );
  return {
    text: `CometChat apps: ${statuses.map((s) => `${escapeMrkdwn(s.name)} (${s.check.state})`).join(', ')}`,
    blocks: blocks.slice(0, 50),
  };
}
