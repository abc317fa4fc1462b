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
  const body = Buffer.from('{"trigger":"call_ended","data":{"sessionId":"s1"}}');

  it('is the same for the same bytes to the same app, however often they come', () => {
    expect(deliveryId('default', body)).toBe(deliveryId('default', Buffer.from(body)));
    expect(deliveryId('default', body)).toMatch(/^[0-9a-f]{32}$/);
  });

  it('differs for another app or other bytes', () => {
    expect(deliveryId('staging', body)).not.toBe(deliveryId('default', body));
    const spaced = Buffer.from('{"trigger": "call_ended","data":{"sessionId":"s1"}}');
    expect(deliveryId('default', spaced)).not.toBe(deliveryId('default', body));
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
