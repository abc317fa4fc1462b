import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// `npm run try` as a person runs it: a mistake is said, and the try fails.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function tryWith(...args: string[]) {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'offline/try.ts', ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, LOG_LEVEL: 'error' },
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('npm run try', () => {
  it('names a command it does not know, shows the usage, and fails', () => {
    const run = tryWith('nonsense');
    expect(run.stderr).toContain('There is no try command "nonsense".');
    expect(run.stdout).toContain('Usage: npm run try');
    expect(run.stdout).toContain('user <uid> can <action> [<uid>]');
    expect(run.stdout).toContain('user <uid> can <action> in <guid>');
    expect(run.stdout).toContain('group <guid>');
    expect(run.stdout).toContain('user <uid> role <role>');
    expect(run.status).toBe(2);
  });

  it('refuses a two-app command without an app, and an unknown command with one', () => {
    // "audit" is a try command only where two apps are served ("staging audit").
    const audit = tryWith('audit');
    expect(audit.stderr).toContain('There is no try command "audit".');
    expect(audit.status).toBe(2);
    const staging = tryWith('staging', 'nonsense');
    expect(staging.stderr).toContain('There is no try command "nonsense".');
    expect(staging.stdout).toContain('Usage: npm run try');
    expect(staging.status).toBe(2);
  }, 60_000);

  it("lists both sandboxes' session ids", () => {
    const run = tryWith('sessions');
    expect(run.stdout).toMatch(/^staging \(and the single app\):\n {2}\w+ +\S+$/m);
    expect(run.stdout).toMatch(/^prod:\n {2}\w+ +\S+$/m);
    expect(run.status).toBe(0);
  }, 60_000);

  it('fails, changing nothing, when asked for a change it cannot make', () => {
    const run = tryWith('perms', 'default', 'deny', 'nosuchkey');
    expect(run.stderr).toContain('"deny nosuchkey"');
    expect(run.stderr).toContain('Nothing was changed.');
    expect(run.stdout).not.toContain('received 1 update');
    expect(run.status).toBe(2);
  }, 60_000);
});

describe('npm run try -- perms', () => {
  it('shows each key by its label, with the key itself as the hint', () => {
    const run = tryWith('perms', 'default');
    expect(run.status).toBe(0);
    // The allowed actions by label; each field labelled, its key first in its hint.
    expect(run.stdout).toContain('[x] User Listing\n');
    expect(run.stdout).toContain('[x] Profile Editing\n');
    expect(run.stdout).toMatch(/^║ User Listing Mode\n║ {3}all\n║ {3}\(listUsers\.mode · /m);
    expect(run.stdout).toMatch(/^║ Block User Role Filter\n/m);
    expect(run.stdout).not.toMatch(/^║ listUsers\.mode$/m);
    expect(run.stdout).not.toContain('[x] listUsers\n');
  }, 60_000);

  it('puts a key back to the default with "reset": chosen, reviewed, one DELETE', () => {
    const run = tryWith('perms', 'banned', 'reset', 'sendMessage');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      '> choose sendMessage in "Back to the default", then "Review changes"',
    );
    expect(run.stdout).toContain('║ Message Sending (`sendMessage`): allow → the default (allow)');
    expect(run.stdout).toContain('║ Message Sending (`sendMessage`): allow ← back to the default');
    expect(run.stdout).toContain(
      'CometChat (sandbox) received 1 update: DELETE /v3/roles/banned/permissions/sendMessage\n',
    );
    const unknown = tryWith('perms', 'banned', 'reset', 'nosuchkey');
    expect(unknown.stderr).toContain('"reset nosuchkey"');
    expect(unknown.stdout).not.toContain('received 1 update');
    expect(unknown.status).toBe(2);
  }, 120_000);

  it('names the changed key by its label and its key in the review and the result', () => {
    const run = tryWith('perms', 'default', 'deny', 'sendMessage');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('║ Message Sending (`sendMessage`): allow → deny');
    expect(run.stdout).toContain('║ Message Sending (`sendMessage`): deny ← changed');
  }, 60_000);
});

describe('npm run try, the demo', () => {
  it("says before the demo that the sandbox's hostile names are escaping fixtures, then runs it", () => {
    const run = tryWith();
    expect(run.stdout).toContain('written to test escaping');
    expect(run.stdout).toContain('never as a mention');
    expect(run.stdout.indexOf('written to test escaping')).toBeLessThan(
      run.stdout.indexOf('/cometchat roles'),
    );
    expect(run.status).toBe(0);
  }, 60_000);
});

describe('npm run try -- user, users', () => {
  it("draws a user's card: the uid, the role and the account, a hostile name as written", () => {
    const run = tryWith('user', 'cometchat-uid-7');
    expect(run.status).toBe(0);
    // The header shows the uid as CometChat keeps it.
    expect(run.stdout).toContain('User cometchat-uid-7\n│ ════');
    expect(run.stdout).toContain('Uid: `cometchat-uid-7`');
    expect(run.stdout).toContain('Role: Support agent `support-agent`');
    expect(run.stdout).toContain('Account: ● active');
    // The app's bold is drawn as Slack shows it; the asterisks of the name, which the app
    // escaped, stay.
    expect(run.stdout).toContain('Name: *Bold* _Agent_ ~x~');
  }, 60_000);

  it('says when an account is deactivated', () => {
    const run = tryWith('user', 'mallory-markup');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Account: ⛔ deactivated \d{4}-\d\d-\d\d \d\d:\d\d/);
  }, 60_000);

  it('draws the user search as a table, one uid a row', () => {
    const run = tryWith('users', 'role:premium');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^│ # │ Uid +│ Name +│ Role +│/m);
    for (const uid of ['ana_souza', 'cometchat-uid-4', 'cometchat-uid-9', 'customer-1001']) {
      expect(run.stdout).toMatch(new RegExp(`^│ \\d │ ${uid} +│ .* │ premium +│`, 'm'));
    }
    expect(run.stdout).not.toContain('cometchat-uid-7');
  }, 60_000);

  it('prints the walk of "can" and its conclusion', () => {
    const run = tryWith('user', 'cometchat-uid-5', 'can', 'sendMessage', 'cometchat-uid-7');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Can cometchat-uid-5 sendMessage?');
    expect(run.stdout).toContain('✔ the action Message Sending (`sendMessage`) = `allow`');
    expect(run.stdout).toMatch(/^│ ⛔ Denied: `cometchat-uid-5` blocked `cometchat-uid-7`\.$/m);
  }, 60_000);

  it('prints the walk of "can" in a group, layer by layer, each step with its source', () => {
    const run = tryWith('user', 'ana_souza', 'can', 'sendMessage', 'in', 'hiking');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Can ana_souza sendMessage in hiking?');
    expect(run.stdout).toContain(
      '✔ Role · the action Message Sending (`sendMessage`) = `allow` (the documented default)',
    );
    expect(run.stdout).toContain(
      '✔ Group · membership (from CometChat): a member, scope `participant`',
    );
    expect(run.stdout).toContain(
      '✔ Scope · the scope Message Sending (`sendMessage`) = `allow` (the default CometChat lists for the scope)',
    );
    expect(run.stdout).toMatch(
      /^│ \? Cannot tell: .*\(`sendMessage`\) was never set through this app/m,
    );
  }, 60_000);

  it("draws a group's card, and finds groups", () => {
    const card = tryWith('group', 'hiking');
    expect(card.status).toBe(0);
    expect(card.stdout).toContain('Guid: `hiking`');
    expect(card.stdout).toContain('Moderators (1): Nancy Grace `cometchat-uid-3`');
    const found = tryWith('groups', 'type:private');
    expect(found.status).toBe(0);
    expect(found.stdout).toContain('Hiking club `hiking` · private');
  }, 120_000);

  it('changes a role: the review from one role to the other, "Apply", and the card after', () => {
    // The seed's cometchat-uid-4 has role premium; vip is another of the seed's roles.
    const run = tryWith('user', 'cometchat-uid-4', 'role', 'vip');
    expect(run.stderr).not.toContain('try failed');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('╔ modal: Change a user');
    expect(run.stdout).toContain('`cometchat-uid-4` from `premium` to `vip`?');
    expect(run.stdout).toContain('> "Apply"');
    expect(run.stdout).toContain('Applied to user `cometchat-uid-4`: role is now `vip`.');
    expect(run.stdout).toContain(
      'CometChat (sandbox) received 1 update: PUT /v3/users/cometchat-uid-4 {"role":"vip"}',
    );
    // The card asked for afterwards: the stand-in has the new role.
    const card = run.stdout.slice(run.stdout.lastIndexOf('> /cometchat user cometchat-uid-4\n'));
    expect(card).toMatch(/^│ Role: .*`vip`/m);
  }, 60_000);

  it('says why there is no review when the user has the role already, and succeeds', () => {
    const run = tryWith('user', 'cometchat-uid-4', 'role', 'premium');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(
      '`cometchat-uid-4` has role `premium` already; nothing to change.',
    );
    expect(run.stdout).not.toContain('received 1 update');
  }, 60_000);

  it("prints CometChat's sentence for an unknown uid, and succeeds as a failed call lookup does", () => {
    const run = tryWith('user', 'no-such-user');
    // The try ran; the reply is the app's answer, said to the person as Slack would show it.
    expect(run.stdout).toContain(
      'CometChat has no user with that uid (`ERR_UID_NOT_FOUND`). Check the uid.',
    );
    expect(run.stdout).not.toContain('User no-such-user');
    expect(run.status).toBe(0);
  }, 60_000);
});

describe('npm run try -- --json', () => {
  it('prints each message as Slack gets it, after its drawing', () => {
    const run = tryWith('help', '--json');
    expect(run.status).toBe(0);
    const start = run.stdout.indexOf('\n{');
    expect(start).toBeGreaterThan(0);
    const json = JSON.parse(run.stdout.slice(start, run.stdout.lastIndexOf('}') + 1)) as {
      blocks?: unknown[];
    };
    expect(json.blocks?.length).toBeGreaterThan(0);
    // Every emoji the reply uses is drawn.
    expect(run.stdout.slice(0, start)).not.toMatch(/:[a-z_]+:/);
  }, 60_000);
});

describe('npm run try -- role', () => {
  it('makes a role from a preset: the review, one POST and one PUT, and the role in the list', () => {
    const run = tryWith('role', 'create', 'night', 'preset', 'no-calls', 'Night');
    expect(run.stderr).not.toContain('try failed');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('╔ modal: Change a role');
    expect(run.stdout).toContain('Create role `night` named Night?');
    expect(run.stdout).toContain(
      'Applied to role `night` (new): created, named Night, with 2 permissions set.',
    );
    expect(run.stdout).toContain(
      'received 2 updates: POST /v3/roles {"role":"night","name":"Night"}; PUT /v3/roles/night/permissions',
    );
    // The roles after: the new one is the eleventh, on the second page.
    expect(run.stdout.slice(run.stdout.lastIndexOf('> /cometchat roles 2'))).toContain('night');
  }, 60_000);

  it('deletes a role after the review, and refuses default before anything is sent', () => {
    const run = tryWith('role', 'delete', 'vip');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('Delete role `vip`');
    expect(run.stdout).toContain('received 1 update: DELETE /v3/roles/vip');
    const refused = tryWith('role', 'delete', 'default');
    expect(refused.stdout).toContain('The role `default` cannot be deleted');
    expect(refused.stdout).not.toContain('received 1 update');
  }, 60_000);
});

describe('npm run try -- alerts', () => {
  it('subscribes a channel, posts the unanswered call once, and takes the same delivery again without a second post', () => {
    const run = tryWith('alerts');
    expect(run.stderr).not.toContain('try failed');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('> /cometchat subscribe calls status:unanswered');
    expect(run.stdout).toContain('Subscribed <#C0TRYALERTS> to calls `status:unanswered`');
    // The alert, drawn as posted in the channel, after the first delivery was kept.
    const first = run.stdout.indexOf('"kept":true');
    // Sent as CometChat sends a call nobody answered: call_unanswered, not call_ended.
    expect(run.stdout).toContain('it sends call_unanswered to the app');
    const alert = run.stdout.indexOf('A call was not answered');
    expect(first).toBeGreaterThan(0);
    expect(alert).toBeGreaterThan(first);
    expect(run.stdout.slice(0, alert)).toMatch(/message \(posted in #call-alerts\)\n│ ☎ $/);
    // The same delivery again: answered 200, not kept, and still one post.
    expect(run.stdout.slice(alert)).toContain('HTTP 200 {"ok":true,"kept":false}');
    expect(run.stdout.match(/A call was not answered/g)).toHaveLength(1);
    expect(run.stdout).toContain('Alerts posted in #call-alerts for the two deliveries: 1.');
  }, 60_000);

  it('runs on the single app only', () => {
    const run = tryWith('prod', 'alerts');
    expect(run.stderr).toContain('runs on the single app');
    expect(run.status).toBe(2);
  }, 60_000);
});

describe('npm run try -- --app', () => {
  // The whole road (stand-ins, the built app, the try against it) is in stack/standins.test.ts.
  const withFile = (file: string, ...args: string[]) => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'offline/try.ts', ...args], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, OFFLINE_ENV_FILE: file },
      timeout: 60_000,
    });
    return { status: run.status, stdout: run.stdout, stderr: run.stderr };
  };

  it('says to start the stand-ins and the app when their settings are not there', () => {
    const run = withFile('/nonexistent/.env.offline', '--app', 'roles');
    expect(run.stderr).toBe(
      'There is no /nonexistent/.env.offline: start the stand-ins first (npm run standins), then the app (npm run start:offline).\n',
    );
    expect(run.status).toBe(2);
  }, 60_000);

  it('refuses a try that needs an app configured for it', () => {
    const approve = withFile('/nonexistent/.env.offline', '--app', 'approve');
    expect(approve.stderr).toContain('The "approve" try starts an app configured for it');
    expect(approve.status).toBe(2);
    const staging = withFile('/nonexistent/.env.offline', '--app', 'staging', 'roles');
    expect(staging.stderr).toContain('The "staging" try starts an app configured for it');
    expect(staging.status).toBe(2);
  }, 60_000);
});
