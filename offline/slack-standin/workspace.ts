/**
 * The one workspace the stand-in pretends to be. The driver uses the same ids by default, so a
 * payload it builds and an answer the stand-in gives agree on team, app and bot.
 */
export const STAND_IN_WORKSPACE = Object.freeze({
  teamId: 'T0STANDIN',
  teamDomain: 'standin',
  teamName: 'Stand-in Workspace',
  appId: 'A0STANDIN',
  botId: 'B0STANDIN',
  botUserId: 'U0STANDINBOT',
  botName: 'cometchat-ops',
});

export const DEFAULT_BOT_TOKEN = 'xoxb-standin-bot-token';
export const DEFAULT_APP_TOKEN = 'xapp-1-standin-app-token';
