import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postFileToUploadUrl } from '../../src/slack/file-upload.ts';

describe('postFileToUploadUrl', () => {
  let dir: string;
  let path: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'file-upload-'));
    path = join(dir, 'trail.csv');
    await writeFile(path, '"a","b"\r\n"1","2"\r\n');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('sends the file as a stream, announcing its length, never as a buffer read whole', async () => {
    const seen: RequestInit[] = [];
    const fetchFn: typeof fetch = async (_url, init) => {
      seen.push(init ?? {});
      // Read as a server would: the bytes arrive through the stream.
      const text = await new Response(init?.body).text();
      return new Response(`OK - ${text.length}`, { status: 200 });
    };
    await postFileToUploadUrl('https://files.example/upload/F1', path, 18, fetchFn);
    const [init] = seen;
    expect(init?.body).toBeInstanceOf(ReadableStream);
    expect(init?.method).toBe('POST');
    expect(new Headers(init?.headers).get('content-length')).toBe('18');
  });

  it('fails with the status alone, never the address (a capability for the file)', async () => {
    const fetchFn: typeof fetch = async () => new Response('no', { status: 404 });
    const failed = postFileToUploadUrl('https://files.example/upload/F-secret', path, 18, fetchFn);
    await expect(failed).rejects.toThrow('HTTP 404');
    await expect(failed).rejects.not.toThrow('F-secret');
  });
});
