import { describe, expect, it } from 'vitest';
import { SANDBOX_SESSION_IDS } from '../../offline/cometchat-standin/server.ts';
import {
  actionButtons,
  blocksOf,
  commandReply,
  expectNoInjectedMarkup,
  interactionReply,
  markupOf,
  textOf,
} from './harness.ts';
import { callRequests, useHarness } from './support.ts';

const RECORDINGS = 'https://recordings-us.cometchat.io/';

/** `*Label*\nvalue` fields of the summary, as a map. */
function fieldsOf(payload: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const block of blocksOf(payload)) {
    for (const field of (block.fields ?? []) as { text: string }[]) {
      const [label, ...value] = field.text.split('\n');
      out[label?.replace(/\*/g, '') ?? ''] = value.join('\n');
    }
  }
  return out;
}

/** Participant lines, one per participant. */
function participantLines(payload: Record<string, unknown>): string[] {
  return markupOf({ blocks: blocksOf(payload) })
    .flatMap((text) => text.split('\n'))
    .filter((line) => / · (joined|never joined)\b/.test(line));
}

function images(payload: Record<string, unknown>): { image_url: string; alt_text: string }[] {
  return blocksOf(payload)
    .filter((b) => b.type === 'context')
    .flatMap((b) => b.elements as { type: string; image_url: string; alt_text: string }[])
    .filter((e) => e.type === 'image');
}

describe('/cometchat call through the real app', () => {
  const h = useHarness();

  it('an ended audio call (`data` as an array): summary, people, times, duration, minutes', async () => {
    expect(h.sandbox.state.calls.get(SANDBOX_SESSION_IDS.audioEnded)?.shape).toBe('array');
    const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.audioEnded}`);
    expect(reply.response_type).toBe('ephemeral');
    expect(textOf(blocksOf(reply)[0])).toContain('Audio call · ended');
    expect(fieldsOf(reply)).toEqual({
      Type: 'audio',
      Mode: 'call',
      Status: 'ended',
      'Receiver type': 'user',
      Initiator: '*Andrew Joseph* (`cometchat-uid-1`)',
      Receiver: '*George Alan* (`cometchat-uid-2`)',
      Initiated: '<!date^1700000000^{date_short_pretty} {time}|2023-11-14T22:13:20Z>',
      Started: '<!date^1700000006^{date_short_pretty} {time}|2023-11-14T22:13:26Z>',
      Ended: '<!date^1700000756^{date_short_pretty} {time}|2023-11-14T22:25:56Z>',
      Duration: '00:12:30',
      'Audio minutes': '12.5',
      'Video minutes': '0',
    });
    // The pictures stand beside the role; the names and uids are in the fields, once.
    const avatarTexts = blocksOf(reply)
      .filter((b) => b.type === 'context')
      .flatMap((b) => b.elements as { type: string; text?: string }[])
      .filter((e) => e.type === 'mrkdwn')
      .map((e) => e.text);
    expect(avatarTexts).toEqual(expect.arrayContaining(['Initiator', 'Receiver']));
    expect(markupOf(reply).join('\n').split('`cometchat-uid-1`')).toHaveLength(3);
    expect(images(reply)).toEqual([
      {
        type: 'image',
        image_url: 'https://data-us.cometchat.io/assets/images/avatars/cometchat-uid-1.webp',
        alt_text: 'Andrew Joseph',
      },
      {
        type: 'image',
        image_url: 'https://data-us.cometchat.io/assets/images/avatars/cometchat-uid-2.webp',
        alt_text: 'George Alan',
      },
    ]);
    expect(participantLines(reply)).toEqual([
      ':white_circle: ended · *Andrew Joseph* (`cometchat-uid-1`) · joined · 12.6 min · (audio 12.6, video 0) · in <!date^1700000002^{time}|2023-11-14T22:13:22Z> · out <!date^1700000756^{time}|2023-11-14T22:25:56Z>',
      ':white_circle: ended · *George Alan* (`cometchat-uid-2`) · joined · 12.5 min · (audio 12.5, video 0) · in <!date^1700000006^{time}|2023-11-14T22:13:26Z> · out <!date^1700000756^{time}|2023-11-14T22:25:56Z>',
    ]);
    expect(markupOf(reply).join('\n')).toContain('*Participants* (2)');
    // "Open in CometChat" links the call's dashboard page (issue 49).
    expect(actionButtons(reply).map((b) => b.action_id)).toEqual([
      'share_call',
      'open_in_cometchat',
    ]);
    expect(callRequests(h)).toHaveLength(1);
    expect(callRequests(h)[0]?.headers.onbehalfof).toBeUndefined();
  });

  it('an unanswered video call (`data` as an object): no start, a participant who never joined', async () => {
    expect(h.sandbox.state.calls.get(SANDBOX_SESSION_IDS.unanswered)?.shape).toBe('object');
    const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.unanswered}`);
    expect(textOf(blocksOf(reply)[0])).toContain('Video call · unanswered');
    expect(fieldsOf(reply)).toMatchObject({ Started: '—', Duration: '00:00:00', Type: 'video' });
    const [initiator, receiver] = participantLines(reply);
    // CometChat gives the initiator no state: joined, in a call that is over, they left with it.
    expect(initiator).toMatch(
      /^:white_circle: ended · \*Nancy Grace\* \(`cometchat-uid-3`\) · joined · /,
    );
    expect(receiver).toBe(
      ':large_orange_circle: unanswered · *Susan Marie* (`cometchat-uid-4`) · never joined · 0 min · (audio 0, video 0)',
    );
  });

  it('a rejected video call', async () => {
    const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.videoRejected}`);
    expect(textOf(blocksOf(reply)[0])).toContain('Video call · rejected');
    expect(participantLines(reply)[1]).toMatch(
      /^:red_circle: rejected · \*John Paul\* \(`cometchat-uid-5`\) · never joined/,
    );
  });

  it('an ongoing group meeting: group receiver, every state, the first ten participants', async () => {
    const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.groupOngoing}`);
    expect(fieldsOf(reply)).toMatchObject({
      Mode: 'meet',
      Status: 'ongoing',
      'Receiver type': 'group',
      Receiver: '*Product launch 🚀* (`product-launch`)',
      Ended: '—',
      Duration: '00:41:20',
      'Audio minutes': '188.6',
      'Video minutes': '176.1',
    });
    const lines = participantLines(reply);
    expect(lines).toHaveLength(10);
    const markers = lines.map((line) => line.split(' · ')[0]);
    // The initiator, whom CometChat gives no state, is still in the call (joined, not left).
    expect(lines[0]).toMatch(/^:large_green_circle: ongoing · \*Nancy Grace\* /);
    expect(new Set(markers)).toEqual(
      new Set([
        ':large_green_circle: ongoing',
        ':white_circle: ended',
        ':large_orange_circle: unanswered',
        ':red_circle: rejected',
      ]),
    );
    // No name: the uid stands alone. Minutes as `totalDuration` are read as well.
    expect(lines).toContain(
      ':white_circle: ended · `emea-lead` · joined · 7.3 min · (audio 7.3, video 0) · in <!date^1700011000^{time}|2023-11-15T01:16:40Z> · out <!date^1700011435^{time}|2023-11-15T01:23:55Z>',
    );
    // Still in the call: joined, no leave time.
    expect(lines[1]).toMatch(/ · in <!date\^1700010830\^\{time\}\|[^>]+>$/);
    expect(markupOf(reply).join('\n')).toContain('2 more participants not shown here.');
    expect(actionButtons(reply).map((b) => b.text.text)).toEqual([
      'Show all 12 participants',
      'Share in channel',
      'Open in CometChat',
    ]);
  });

  it('a call with recordings: links, durations, times', async () => {
    const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.withRecordings}`);
    const recordings = markupOf(reply).find((t) => t.startsWith('*Recordings*')) ?? '';
    expect(recordings.split('\n')).toEqual([
      '*Recordings* (2)',
      `<${RECORDINGS}sandbox-app/${SANDBOX_SESSION_IDS.withRecordings}/rec-5f2b8c1e.mp4|Recording rec-5f2b8c1e> · 15.2 min · <!date^1700014460^{date_short_pretty} {time}|2023-11-15T02:14:20Z> → <!date^1700015372^{time}|2023-11-15T02:29:32Z>`,
      `<${RECORDINGS}sandbox-app/${SANDBOX_SESSION_IDS.withRecordings}/rec-9a07d3c4.mp4|Recording rec-9a07d3c4> · 9.8 min · <!date^1700015600^{date_short_pretty} {time}|2023-11-15T02:33:20Z> → <!date^1700016190^{time}|2023-11-15T02:43:10Z>`,
    ]);
    expectNoInjectedMarkup(reply, [RECORDINGS]);
  });

  it('service data with Slack markup is escaped, and an unsafe avatar is not shown', async () => {
    const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.noEntities}`);
    expectNoInjectedMarkup(reply);
    const lines = participantLines(reply);
    expect(lines[0]).toContain('*Eve &lt;@U123&gt; &lt;!here&gt;* (`eve-mentions`)');
    expect(lines[1]).toContain(
      '&amp; &lt;!channel&gt; &lt;https://evil.example|reset password&gt;',
    );
    // Without `data.entities` the people are their uids.
    expect(fieldsOf(reply)).toMatchObject({
      Initiator: '`eve-mentions`',
      Receiver: '`mallory-markup`',
    });
    expect(JSON.stringify(reply)).not.toContain('javascript:');
  });

  it('every seeded call reply stays free of injected markup', async () => {
    for (const [name, id] of Object.entries(SANDBOX_SESSION_IDS)) {
      if (name === 'customId') continue; // has spaces: the shortcut's modal looks it up
      expectNoInjectedMarkup(await commandReply(h, `call ${id}`), [RECORDINGS]);
    }
  });

  it('`call <id> as <uid>` sends onBehalfOf to CometChat and says so', async () => {
    const reply = await commandReply(
      h,
      `call ${SANDBOX_SESSION_IDS.audioEnded} as cometchat-uid-2`,
    );
    expect(markupOf(reply).join('\n')).toContain('looked up as `cometchat-uid-2`');
    const [request] = callRequests(h);
    expect(request?.headers.onbehalfof).toBe('cometchat-uid-2');
    expect(request?.headers.apikey).toBeDefined();
  });

  it('an id with `#`, `?` and `&` is decoded from Slack once and sent as one path segment', async () => {
    const id = 'room#42?x=1&y=2';
    const seeded = h.sandbox.state.calls.get(SANDBOX_SESSION_IDS.audioEnded);
    if (!seeded) throw new Error('seed changed');
    h.sandbox.state.calls.set(id, { ...seeded, record: { ...seeded.record, sessionId: id } });
    // Slack sends `&`, `<` and `>` typed in a command as HTML entities.
    const reply = await commandReply(h, 'call room#42?x=1&amp;y=2');
    expect(callRequests(h).map((r) => r.path)).toEqual(['/v3/calls/room%2342%3Fx%3D1%26y%3D2']);
    expect(markupOf(reply).join('\n')).toContain('Session `room#42?x=1&amp;y=2`');
  });

  it('300 participants stay within limits; "Show all" opens a paged modal', async () => {
    const id = SANDBOX_SESSION_IDS.presenter300;
    const reply = await commandReply(h, `call ${id} as cometchat-uid-1`);
    expect(blocksOf(reply).length).toBeLessThanOrEqual(50);
    expect(participantLines(reply)).toHaveLength(10);
    expect(markupOf(reply).join('\n')).toContain('290 more participants not shown here.');
    const showAll = actionButtons(reply).find((b) => b.action_id === 'call_participants');
    expect(showAll?.text.text).toBe('Show all 300 participants');

    const before = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({
        actionId: 'call_participants',
        message: { ts: '1700018000.000100', blocks: blocksOf(reply) },
      }),
    );
    // The modal opens at once (the trigger expires in 3 s), then is filled in.
    const opened = await h.slack.nextCall('views.open', before);
    expect(textOf(opened.args.view)).toContain('Looking up');
    const filled = await h.slack.nextCall('views.update', before);
    const page1 = filled.args.view as Record<string, unknown>;
    expect(markupOf(page1).join('\n')).toContain('Page 1 of 15 · 300 participants');
    expect(participantLines(page1)).toHaveLength(20);
    expect(participantLines(page1)[0]).toContain('*Andrew Joseph* (`cometchat-uid-1`)');
    expect(actionButtons(page1).map((b) => b.action_id)).toEqual(['participants_page_next']);

    const view = h.slack.views.get(String(filled.args.view_id));
    if (!view) throw new Error('the modal is not open');
    const next = h.slack.calls.length;
    await h.driver.interaction(h.driver.blockAction({ actionId: 'participants_page_next', view }));
    const page2 = (await h.slack.nextCall('views.update', next)).args.view as Record<
      string,
      unknown
    >;
    expect(markupOf(page2).join('\n')).toContain('Page 2 of 15 · 300 participants');
    expect(participantLines(page2)[0]).not.toBe(participantLines(page1)[0]);
    expect(actionButtons(page2).map((b) => b.action_id)).toEqual([
      'participants_page_prev',
      'participants_page_next',
    ]);

    const view2 = h.slack.views.get(String(filled.args.view_id));
    if (!view2) throw new Error('the modal is not open');
    const prev = h.slack.calls.length;
    await h.driver.interaction(
      h.driver.blockAction({ actionId: 'participants_page_prev', view: view2 }),
    );
    const back = (await h.slack.nextCall('views.update', prev)).args.view;
    expect(markupOf(back).join('\n')).toContain('Page 1 of 15 · 300 participants');
    // Every lookup acts on behalf of the same user as the command did.
    expect(callRequests(h).map((r) => r.headers.onbehalfof)).toEqual([
      'cometchat-uid-1',
      'cometchat-uid-1',
      'cometchat-uid-1',
      'cometchat-uid-1',
    ]);
  });

  it('Share in channel posts an in_channel copy without buttons', async () => {
    const reply = await commandReply(h, `call ${SANDBOX_SESSION_IDS.groupOngoing}`);
    const shared = await interactionReply(
      h,
      h.driver.blockAction({
        actionId: 'share_call',
        message: { ts: '1700010800.000100', blocks: blocksOf(reply) },
      }),
    );
    expect(shared.response_type).toBe('in_channel');
    expect(shared.replace_original).toBe(false);
    expect(actionButtons(shared)).toEqual([]);
    expect(fieldsOf(shared)).toEqual(fieldsOf(reply));
  });
});
