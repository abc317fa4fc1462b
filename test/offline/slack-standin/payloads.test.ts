import { describe, expect, it } from 'vitest';
import {
  type Actor,
  blockActionPayload,
  type Fresh,
  messageShortcutPayload,
  slashCommandFields,
} from '../../../offline/slack-standin/payloads.ts';

const actor: Actor = {
  teamId: 'T1',
  teamDomain: 'acme',
  userId: 'U1',
  userName: 'ada',
  channelId: 'C1',
  channelName: 'ops',
  apiAppId: 'A1',
  verificationToken: 'vt',
};
const fresh: Fresh = {
  triggerId: '1.2.abc',
  responseUrl: 'http://127.0.0.1:1/response/r1',
  actionTs: '1700000000.000001',
};

describe('payloads', () => {
  it('builds the form fields of a slash command', () => {
    expect(slashCommandFields(actor, fresh, '/cometchat', 'roles', { user_id: 'U9' })).toEqual({
      token: 'vt',
      team_id: 'T1',
      team_domain: 'acme',
      channel_id: 'C1',
      channel_name: 'ops',
      user_id: 'U9',
      user_name: 'ada',
      command: '/cometchat',
      text: 'roles',
      api_app_id: 'A1',
      is_enterprise_install: 'false',
      response_url: fresh.responseUrl,
      trigger_id: fresh.triggerId,
    });
  });

  it('builds a block action inside a view: no response_url, the view with its state', () => {
    const view = {
      id: 'V1',
      hash: 'h1',
      callback_id: 'edit_role',
      state: { values: {} },
      blocks: [
        {
          type: 'section',
          block_id: 'perm',
          text: { type: 'mrkdwn', text: 'x' },
          accessory: {
            type: 'static_select',
            action_id: 'pick',
            options: [{ text: { type: 'plain_text', text: 'Admin' }, value: 'admin' }],
          },
        },
      ],
    };
    const values = { perm: { pick: { type: 'static_select', selected_option: null } } };
    const payload = blockActionPayload(actor, fresh, {
      actionId: 'pick',
      view,
      values,
      selectedOption: { value: 'admin' },
    });
    expect(payload).not.toHaveProperty('response_url');
    expect(payload).toMatchObject({
      type: 'block_actions',
      user: { id: 'U1', username: 'ada', team_id: 'T1' },
      team: { id: 'T1', domain: 'acme' },
      container: { type: 'view', view_id: 'V1' },
      view: { id: 'V1', hash: 'h1', state: { values } },
      trigger_id: fresh.triggerId,
      actions: [
        {
          type: 'static_select',
          action_id: 'pick',
          block_id: 'perm',
          selected_option: { text: { type: 'plain_text', text: 'Admin' }, value: 'admin' },
          action_ts: fresh.actionTs,
        },
      ],
    });
  });

  it('builds a block action in an ephemeral reply when no message is given', () => {
    const payload = blockActionPayload(actor, fresh, { actionId: 'more', value: 'page:2' });
    expect(payload).not.toHaveProperty('message');
    expect(payload).toMatchObject({
      container: { type: 'message', channel_id: 'C1', is_ephemeral: true },
      response_url: fresh.responseUrl,
      actions: [{ action_id: 'more', value: 'page:2', type: 'button' }],
    });
  });

  it('builds a message shortcut with the message and a response_url', () => {
    const payload = messageShortcutPayload(actor, fresh, {
      callbackId: 'lookup_call',
      message: { text: 'call abc', ts: '1700000000.000200' },
    });
    expect(payload).toMatchObject({
      type: 'message_action',
      callback_id: 'lookup_call',
      message_ts: '1700000000.000200',
      message: { type: 'message', text: 'call abc', ts: '1700000000.000200', user: 'U1' },
      response_url: fresh.responseUrl,
      trigger_id: fresh.triggerId,
      channel: { id: 'C1', name: 'ops' },
    });
  });
});
