import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackStandIn, startSlackStandIn } from '../../../offline/slack-standin/server.ts';
import { recordingLogger } from './recording-logger.ts';

describe('file uploads', () => {
  let standIn: SlackStandIn;
  let bot: WebClient;
  let dir: string;
  beforeAll(async () => {
    standIn = await startSlackStandIn();
    bot = new WebClient(standIn.botToken, {
      slackApiUrl: standIn.apiUrl,
      retryConfig: { retries: 0 },
      logger: recordingLogger().logger,
    });
    dir = await mkdtemp(join(tmpdir(), 'standin-upload-'));
  });
  afterAll(async () => {
    await standIn.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('takes files.uploadV2 in its three steps and keeps the bytes where they were shared', async () => {
    const path = join(dir, 'trail.csv');
    const bytes = '"time","ref"\n"2026-11-29T00:00:00.000Z","r-1"\n';
    await writeFile(path, bytes);
    const answer = await bot.filesUploadV2({
      channel_id: 'D123',
      file: path,
      filename: 'trail.csv',
      title: 'Audit trail',
      initial_comment: 'Here it is.',
    });
    expect(answer.ok).toBe(true);
    const methods = standIn.calls.map((call) => call.method);
    expect(methods).toEqual(['files.getUploadURLExternal', 'files.completeUploadExternal']);
    const [file] = [...standIn.files.values()];
    expect(file).toMatchObject({
      filename: 'trail.csv',
      title: 'Audit trail',
      channel: 'D123',
      initialComment: 'Here it is.',
      completed: true,
      length: Buffer.byteLength(bytes),
    });
    expect(file?.content?.toString('utf8')).toBe(bytes);
  });

  it('refuses to complete a file whose bytes never came, and an unknown one', async () => {
    const url = await bot.files.getUploadURLExternal({ filename: 'x.csv', length: 3 });
    await expect(
      bot.files.completeUploadExternal({ files: [{ id: String(url.file_id) }] }),
    ).rejects.toThrow(/file_upload_not_complete/);
    await expect(
      bot.files.completeUploadExternal({ files: [{ id: 'FNOSUCHFILE' }] }),
    ).rejects.toThrow(/file_not_found/);
  });
});
