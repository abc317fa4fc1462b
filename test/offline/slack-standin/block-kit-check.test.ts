import { describe, expect, it } from 'vitest';
import { blockKitProblems, viewProblems } from '../../../offline/slack-standin/block-kit-check.ts';

const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
const button = (value: string) => ({
  type: 'button',
  action_id: 'a',
  text: { type: 'plain_text', text: 'Go' },
  value,
});

describe('blockKitProblems', () => {
  it('accepts blocks within the limits', () => {
    expect(blockKitProblems([section('x'.repeat(3000))], '/blocks', 50)).toEqual([]);
    expect(blockKitProblems(undefined, '/blocks', 50)).toEqual([]);
  });

  it('reports each overflow with a json pointer, as Slack does', () => {
    const blocks = [
      section('x'.repeat(3001)),
      { type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } },
      { type: 'actions', elements: Array.from({ length: 26 }, () => button('v')) },
      { type: 'actions', block_id: 'b', elements: [button('v'.repeat(2001))] },
      { type: 'context', block_id: 'b', elements: [] },
    ];
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([
      '[ERROR] duplicate block_id b [json-pointer:/blocks/4/block_id]',
      '[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]',
      '[ERROR] must be less than 151 characters [json-pointer:/blocks/1/text/text]',
      '[ERROR] must be less than 26 items [json-pointer:/blocks/2/elements]',
      '[ERROR] must be less than 2001 characters [json-pointer:/blocks/3/elements/0/value]',
    ]);
  });

  it('bounds options of selects and checkboxes', () => {
    const options = (n: number) =>
      Array.from({ length: n }, (_, i) => ({
        text: { type: 'plain_text', text: `o${i}` },
        value: `${i}`,
      }));
    const blocks = [
      {
        type: 'actions',
        elements: [{ type: 'static_select', action_id: 's', options: options(101) }],
      },
      { type: 'actions', elements: [{ type: 'checkboxes', action_id: 'c', options: options(11) }] },
    ];
    expect(blockKitProblems(blocks, '/blocks', 50)).toEqual([
      '[ERROR] must be less than 101 items [json-pointer:/blocks/0/elements/0/options]',
      '[ERROR] must be less than 11 items [json-pointer:/blocks/1/elements/0/options]',
    ]);
  });
});

describe('viewProblems', () => {
  const modal = {
    type: 'modal',
    title: { type: 'plain_text', text: 'Edit role' },
    blocks: [section('x')],
  };

  it('accepts a plain modal', () => {
    expect(viewProblems(modal)).toEqual([]);
  });

  it('wants a submit button when the modal has inputs, and bounded metadata', () => {
    const input = {
      type: 'input',
      label: { type: 'plain_text', text: 'Role' },
      element: { type: 'plain_text_input', action_id: 'r' },
    };
    expect(viewProblems({ ...modal, blocks: [input], private_metadata: 'm'.repeat(3001) })).toEqual(
      [
        '[ERROR] must be less than 3001 characters [json-pointer:/view/private_metadata]',
        '[ERROR] must provide a submit property when using input blocks [json-pointer:/view]',
      ],
    );
  });
});
