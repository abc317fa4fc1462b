import { randomBytes } from 'node:crypto';
import { isRecord } from './is-record.ts';

// Slack's upload of a file, in its three steps (docs.slack.dev, "Uploading files"):
// `files.getUploadURLExternal` (a name and a length) answers an upload URL and a file id; the
// bytes are POSTed to that URL; `files.completeUploadExternal` names the files (id, title) and
// shares them in `channel_id`, with `initial_comment`. A file not completed is shared nowhere.
// The Web API client's `files.uploadV2` makes all three calls.

/** A file as the stand-in keeps it, readable by tests. */
export interface StandInFile {
  id: string;
  filename: string;
  /** The length `files.getUploadURLExternal` was told. */
  length: number;
  /** The bytes POSTed to its upload URL; absent until then. */
  content?: Buffer;
  /** Set by `files.completeUploadExternal`. */
  title?: string;
  channel?: string;
  initialComment?: string;
  completed: boolean;
}

type Answer = Record<string, unknown> & { ok: boolean };

const refuse = (error: string, messages?: string[]): Answer =>
  messages ? { ok: false, error, response_metadata: { messages } } : { ok: false, error };

/** A new file id, shaped like Slack's (`F` and upper-case letters and digits). */
function fileId(): string {
  return `F${randomBytes(6).toString('hex').toUpperCase()}`;
}

/** `files.getUploadURLExternal`: `filename` and `length` (bytes) are required. */
export function getUploadUrl(
  args: Record<string, unknown>,
  files: Map<string, StandInFile>,
  uploadUrl: (id: string) => string,
): Answer {
  const filename = typeof args.filename === 'string' ? args.filename : '';
  const length = Number(args.length);
  if (filename === '')
    return refuse('invalid_arguments', ['[ERROR] missing required field: filename']);
  if (!Number.isInteger(length) || length < 1)
    return refuse('invalid_arguments', ['[ERROR] invalid length']);
  const id = fileId();
  files.set(id, { id, filename, length, completed: false });
  return { ok: true, upload_url: uploadUrl(id), file_id: id };
}

/**
 * A POST to an upload URL: the bytes, sent raw or as the one file of a multipart form (the Web
 * API client sends a form). Slack answers 200 with a short text; an unknown URL, 404.
 */
export async function receiveUpload(
  id: string,
  contentType: string | undefined,
  body: Buffer,
  files: Map<string, StandInFile>,
): Promise<{ status: number; text: string }> {
  const file = files.get(id);
  if (!file || file.completed) return { status: 404, text: 'not_found' };
  let content = body;
  if ((contentType ?? '').toLowerCase().startsWith('multipart/form-data')) {
    const form = await new Response(new Uint8Array(body), {
      headers: { 'content-type': contentType ?? '' },
    }).formData();
    const part = [...form.values()].find((value) => typeof value !== 'string');
    if (part === undefined) return { status: 400, text: 'no file in the form' };
    content = Buffer.from(await part.arrayBuffer());
  }
  files.set(id, { ...file, content });
  return { status: 200, text: `OK - ${content.length}` };
}

/** `files.completeUploadExternal`: `files` a JSON array of `{ id, title? }`, each uploaded. */
export function completeUpload(
  args: Record<string, unknown>,
  files: Map<string, StandInFile>,
): Answer {
  const listed = args.files;
  if (!Array.isArray(listed) || listed.length === 0) {
    return refuse('invalid_arguments', ['[ERROR] missing required field: files']);
  }
  const done: StandInFile[] = [];
  for (const entry of listed) {
    const file = isRecord(entry) && typeof entry.id === 'string' ? files.get(entry.id) : undefined;
    if (!file || file.completed) return refuse('file_not_found');
    if (!file.content) return refuse('file_upload_not_complete');
    const title = isRecord(entry) && typeof entry.title === 'string' ? entry.title : file.filename;
    done.push({
      ...file,
      title,
      completed: true,
      ...(typeof args.channel_id === 'string' ? { channel: args.channel_id } : {}),
      ...(typeof args.initial_comment === 'string' ? { initialComment: args.initial_comment } : {}),
    });
  }
  for (const file of done) files.set(file.id, file);
  return {
    ok: true,
    files: done.map((file) => ({
      id: file.id,
      title: file.title,
      name: file.filename,
      size: file.content?.length,
    })),
  };
}
