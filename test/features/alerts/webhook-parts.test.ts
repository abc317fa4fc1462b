import { describe, expect, it } from 'vitest';
import { deliveryId, safeLink } from '../../../src/features/alerts/webhook-event.ts';
import { passwordMatches } from '../../../src/features/alerts/webhook-intake.ts';

// The pure parts of the webhook route: the password check, a delivery's id, a link's safety.

const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
const expected = { user: 'cometchat-hooks', password: 'a-long-webhook-password' };

describe('passwordMatches', () => {
  it('takes the right user and password', () => {
    expect(passwordMatches(basic('cometchat-hooks:a-long-webhook-password'), expected)).toBe(true);
  });

  it('refuses a wrong user or a wrong password', () => {
    expect(passwordMatches(basic('someone-else:a-long-webhook-password'), expected)).toBe(false);
    expect(passwordMatches(basic('cometchat-hooks:a-long-webhook-passwore'), expected)).toBe(false);
    expect(passwordMatches(basic('cometchat-hooks:'), expected)).toBe(false);
    expect(passwordMatches(basic('cometchat-hooks:a-long-webhook-password '), expected)).toBe(
      false,
    );
  });

  it('refuses another scheme, garbage for base64, and nothing at all', () => {
    const token = Buffer.from('cometchat-hooks:a-long-webhook-password').toString('base64');
    expect(passwordMatches(`Bearer ${token}`, expected)).toBe(false);
    expect(passwordMatches(`basic ${token}`, expected)).toBe(false);
    expect(passwordMatches(token, expected)).toBe(false);
    expect(passwordMatches('Basic !!not*base64!!', expected)).toBe(false);
    expect(passwordMatches('Basic ////', expected)).toBe(false);
    expect(passwordMatches(`Basic ${token} extra`, expected)).toBe(false);
    expect(passwordMatches('Basic ', expected)).toBe(false);
    expect(passwordMatches('', expected)).toBe(false);
    expect(passwordMatches(undefined, expected)).toBe(false);
  });
});

describe('deliveryId', () => {
  const ended = { trigger: 'call_ended', data: { sessionId: 's1', destroyed_at: 1_700_000_100 } };

  it('is the same for the same event, however it is written or how often it comes', () => {
    const rewritten = JSON.parse(JSON.stringify({ data: ended.data, trigger: ended.trigger }));
    expect(deliveryId('default', rewritten)).toBe(deliveryId('default', ended));
    expect(deliveryId('default', ended)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('differs for another app, another call, another end, or another recording', () => {
    expect(deliveryId('staging', ended)).not.toBe(deliveryId('default', ended));
    const other = { ...ended, data: { ...ended.data, sessionId: 's2' } };
    expect(deliveryId('default', other)).not.toBe(deliveryId('default', ended));
    const later = { ...ended, data: { ...ended.data, destroyed_at: 1_700_000_200 } };
    expect(deliveryId('default', later)).not.toBe(deliveryId('default', ended));
    const recording = (url: string) => ({
      trigger: 'recording_generated',
      data: { sessionId: 's1', recording_url: url },
    });
    expect(deliveryId('default', recording('https://r/1'))).not.toBe(
      deliveryId('default', recording('https://r/2')),
    );
  });
});

describe('safeLink', () => {
  it('keeps an https link', () => {
    expect(safeLink('https://files.example.com/rec/1.mp4')).toBe(
      'https://files.example.com/rec/1.mp4',
    );
  });

  it('drops anything else', () => {
    for (const link of [
      'http://files.example.com/rec/1.mp4',
      'javascript:alert(1)',
      'ftp://files.example.com/1',
      'data:text/html,<b>x</b>',
      'not a link',
      '//files.example.com/1',
      '',
      undefined,
    ]) {
      expect(safeLink(link), String(link)).toBeUndefined();
    }
  });
});
