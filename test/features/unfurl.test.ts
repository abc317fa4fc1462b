import { describe, expect, it } from 'vitest';
import type { CometChatApp } from '../../src/apps/apps.ts';
import { UNFURLERS } from '../../src/features/index.ts';
import {
  MAX_UNFURLS,
  planUnfurls,
  readDashboardLink,
  unfurlTarget,
} from '../../src/features/unfurl.ts';

const app = (name: string, appId: string | undefined) => ({ name, appId }) as CometChatApp;
const apps = { all: [app('staging', '1a2b3c'), app('nameless', undefined)] };
const plan = (...urls: string[]) =>
  planUnfurls(
    urls.map((url) => ({ url })),
    apps,
    UNFURLERS,
  ).map((p) => ({ url: p.url, app: p.app.name, section: p.unfurler.section, id: p.id }));

describe('readDashboardLink', () => {
  it('reads the app id, the section and the decoded id of an item page', () => {
    expect(readDashboardLink('https://app.cometchat.com/app/1a2b3c/roles/admin')).toEqual({
      url: 'https://app.cometchat.com/app/1a2b3c/roles/admin',
      appId: '1a2b3c',
      section: 'roles',
      id: 'admin',
    });
    expect(
      readDashboardLink(
        'https://APP.cometchat.com/app/1a2b3c/Calls/v1.us.x%20y/participants?tab=2',
      ),
    ).toMatchObject({ section: 'calls', id: 'v1.us.x y' });
  });

  it('names nothing for pages without an item, other hosts, http, or ids that do not decode', () => {
    for (const url of [
      'https://app.cometchat.com/app/1a2b3c/overview',
      'https://app.cometchat.com/app/1a2b3c',
      'https://app.cometchat.com/apps/1a2b3c/roles/admin',
      'https://evil.example/app/1a2b3c/roles/admin',
      'https://app.cometchat.com.evil.example/app/1a2b3c/roles/admin',
      'http://app.cometchat.com/app/1a2b3c/roles/admin',
      'https://app.cometchat.com/app/1a2b3c/roles/%E0%A4%A',
      'not a url',
    ]) {
      expect(readDashboardLink(url), url).toBeUndefined();
    }
  });
});

describe('planUnfurls', () => {
  it('keeps links of a served app to a section a feature shows, each url once', () => {
    const role = 'https://app.cometchat.com/app/1A2B3C/roles/admin';
    expect(plan(role, role, 'https://app.cometchat.com/app/1a2b3c/calls/v1.us.1')).toEqual([
      { url: role, app: 'staging', section: 'roles', id: 'admin' },
      {
        url: 'https://app.cometchat.com/app/1a2b3c/calls/v1.us.1',
        app: 'staging',
        section: 'calls',
        id: 'v1.us.1',
      },
    ]);
  });

  it('drops other apps, unknown sections and ids that cannot be one', () => {
    expect(
      plan(
        'https://app.cometchat.com/app/ffff/roles/admin',
        'https://app.cometchat.com/app/1a2b3c/widgets/w1',
        'https://app.cometchat.com/app/1a2b3c/roles/Not%20A%20Role',
        `https://app.cometchat.com/app/1a2b3c/calls/${'x'.repeat(300)}`,
      ),
    ).toEqual([]);
  });

  it(`asks for at most ${MAX_UNFURLS} cards per message`, () => {
    const urls = Array.from(
      { length: MAX_UNFURLS + 3 },
      (_, i) => `https://app.cometchat.com/app/1a2b3c/calls/c${i}`,
    );
    expect(plan(...urls).map((p) => p.id)).toEqual(
      urls.slice(0, MAX_UNFURLS).map((_, i) => `c${i}`),
    );
  });
});

describe('unfurlTarget', () => {
  it('uses the unfurl id and source when Slack gives them, else the message', () => {
    expect(
      unfurlTarget({ channel: 'COMPOSER', message_ts: '1.2', unfurl_id: 'U1', source: 'composer' }),
    ).toEqual({ unfurl_id: 'U1', source: 'composer' });
    expect(unfurlTarget({ channel: 'C1', message_ts: '1.2' })).toEqual({
      channel: 'C1',
      ts: '1.2',
    });
    expect(
      unfurlTarget({ channel: 'C1', message_ts: '1.2', unfurl_id: 'U1', source: 'odd' }),
    ).toEqual({ channel: 'C1', ts: '1.2' });
  });
});
