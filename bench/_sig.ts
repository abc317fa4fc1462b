import { signSlackRequest } from '../src/slack-standin/driver.ts';
const body = new URLSearchParams({ command: '/cometchat', text: 'help', team_id: 'T1', user_id: 'U1', channel_id: 'C1', response_url: 'http://127.0.0.1:1/response/x', trigger_id: '1.2.3', api_app_id: 'A1', token: 't' }).toString();
const r = await fetch('http://127.0.0.1:39124/slack/events', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...signSlackRequest('x', body) }, body });
console.log(r.status, await r.text());
