import { createHash, createHmac, createSecretKey, timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import type { Access } from '../access/access.ts';
import { type CatalogueReader, createCatalogueReader } from '../cometchat/catalogue-reader.ts';
import type { CometChatClient } from '../cometchat/client.ts';
import { RoleIdSchema } from '../cometchat/schemas.ts';
import { InputError } from '../replies/failure.ts';

// The CometChat apps one install serves. Every button and modal that comes back from Slack
// names its app and is signed by that app's key, so it cannot be turned against another app.

/** One configured CometChat app, as the features use it. */
export interface CometChatApp {
  /** The name people type (`/cometchat staging roles`); `default` for a single-app install. */
  name: string;
  appId: string | undefined;
  region: string | undefined;
  cometchat: CometChatClient;
  /**
   * The app's permission catalogue: its CometChat's definitions merged with the shipped ones,
   * kept a few minutes; the shipped catalogue (as `fallback`) when they cannot be read.
   */
  catalogue: CatalogueReader;
  /** Who may edit this app's permissions (its own editors, else the workspace's). */
  access: Access;
  /**
   * Set when this app's changes need a second person: where requests are posted, who may approve
   * them (an editor of the app who did not ask, and when APPROVERS is set, one of those too:
   * `approvers` is then its check), and how long a request stays open (APPROVAL_TTL_HOURS).
   */
  approval?:
    | {
        channel: string;
        approvers?: Access | undefined;
        ttlMs: number;
        reminder?: ApprovalReminder | undefined;
      }
    | undefined;
  /**
   * Whether a moderation decision waits for a second moderator (MODERATION_APPROVAL), in the
   * approval channel above (the configuration refuses it without one).
   */
  moderationApproval?: boolean | undefined;
  /**
   * The Basic authentication this app's CometChat webhooks come with, and the setting that holds
   * its password; undefined: the app takes no webhook.
   */
  webhook?: { user: string; password: string; setting: string } | undefined;
  /**
   * Signatures a value that goes to Slack and comes back (a button, a modal's metadata, an option) so
   * that it cannot be made by hand or made to name another app: keyed by this app's own API key,
   * never shown.
   */
  sign(text: string): string;
}

/**
 * When an open request reminds its approvers (APPROVAL_REMINDER_MINUTES after it was asked), and
 * whom the reminder mentions, users and user groups: for a change, APPROVERS, else the app's
 * editors; for a message's decision, its moderators, else its editors. Empty: the workspace's
 * admins decide, and nobody is mentioned by name.
 */
export interface ApprovalReminder {
  afterMs: number;
  approvers: readonly string[];
  moderators: readonly string[];
}

/**
 * Where a change of `kind` waits for a second person: the app's approval, except for a
 * moderation decision where MODERATION_APPROVAL does not ask for one. Pure.
 */
export function approvalFor(
  app: Pick<CometChatApp, 'approval' | 'moderationApproval'>,
  kind: string,
): CometChatApp['approval'] {
  return kind === 'moderation' && !app.moderationApproval ? undefined : app.approval;
}

/** Every configured app; the first is the default. */
export interface Apps {
  readonly all: readonly CometChatApp[];
  /** More than one app: every reply says which app it is about. */
  readonly multiple: boolean;
  byName(name: string): CometChatApp | undefined;
  /** The app a command without an app name is for: the channel's default, then the first. */
  forChannel(channelId: string | undefined): CometChatApp;
  /** The channels whose default is this app. */
  channelsOf(name: string): string[];
}

export interface AppSettings {
  name: string;
  appId: string | undefined;
  region: string | undefined;
  apiKey: string;
  cometchat: CometChatClient;
  /** Injected in tests; else one over `cometchat` (catalogue-reader.ts). */
  catalogue?: CatalogueReader | undefined;
  access: Access;
  approval?: CometChatApp['approval'];
  moderationApproval?: boolean | undefined;
  webhook?: CometChatApp['webhook'];
}

/** Signatures kept per app: every button of a few pages of each list, a few KB in all. */
const SIGNATURES_KEPT = 1_000;

export function createApps(
  settings: readonly AppSettings[],
  channelApps: Readonly<Record<string, string>> = {},
): Apps {
  const all = settings.map(({ apiKey, ...app }): CometChatApp => {
    // A key of its own for signing, derived once: the API key itself never signs anything. As a
    // KeyObject: Node prepares a Buffer key again on every createHmac, which cost a roles page
    // with its two dozen signed buttons about half a millisecond (`npm run bench:profile`).
    const key = createSecretKey(
      // The label is the one values were first signed under: changing it would refuse every open button.
      createHash('sha256').update(`cometchat-ops seal\n${apiKey}`).digest(),
    );
    // A signature depends on the text alone, and a roles page signs the same dozen values each time
    // it is shown: an HMAC each, about 40 µs a page (`npm run bench:profile -- roles`).
    const signed = new LRUCache<string, string>({ max: SIGNATURES_KEPT });
    return {
      ...app,
      catalogue: app.catalogue ?? createCatalogueReader(app.cometchat),
      sign: (text) => {
        let signature = signed.get(text);
        if (signature === undefined) {
          signature = createHmac('sha256', key).update(text).digest('base64url');
          signed.set(text, signature);
        }
        return signature;
      },
    };
  });
  const first = all[0];
  if (!first) throw new Error('at least one CometChat app is configured');
  const byName = (name: string) => all.find((app) => app.name === name);
  return {
    all,
    multiple: all.length > 1,
    byName,
    forChannel: (channelId) =>
      (channelId === undefined ? undefined : byName(channelApps[channelId] ?? '')) ?? first,
    channelsOf: (name) =>
      Object.entries(channelApps)
        .filter(([, app]) => app === name)
        .map(([channel]) => channel),
  };
}

/**
 * What a person is told of a value from Slack (a button's value, a modal's metadata, an option's
 * value) that does not carry a valid signature of an app this install serves: one written before values
 * were signed, by another install or with another key, or made or edited by hand.
 */
export const UNSIGNED_REFUSAL =
  'This button is from an older version or was not made by this app; run the command again.';

/** A value for Slack to carry back: the payload, the app it is about, and the app's signature. */
export function signedValue(app: CometChatApp, payload: Record<string, unknown>): string {
  const body = JSON.stringify({ ...payload, app: app.name });
  return `${app.sign(body)}.${body}`;
}

/** What a signed value says of its app, read before its signature is checked. */
const NamesApp = z.looseObject({ app: z.string() });

/**
 * Opens a signed value that came back from Slack: the app it names must be configured and its
 * signature must match, whether one app is configured or several. Nothing unsigned is read, not even
 * with one app: a value made by hand would otherwise reach every decision that trusts it.
 */
export function openSigned<S extends z.ZodType>(
  apps: Apps,
  schema: S,
  raw: string | undefined,
): { app: CometChatApp; value: z.infer<S> } {
  const text = raw ?? '';
  const dot = text.indexOf('.');
  const signature = text.slice(0, dot);
  const body = text.slice(dot + 1);
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new InputError(UNSIGNED_REFUSAL);
  }
  const named = NamesApp.safeParse(json);
  const app = named.success ? apps.byName(named.data.app) : undefined;
  if (dot < 1 || !app || !sameText(app.sign(body), signature))
    throw new InputError(UNSIGNED_REFUSAL);
  // Signed by this install, yet not of the shape asked for: written by another version.
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new InputError(UNSIGNED_REFUSAL);
  return { app, value: parsed.data };
}

/** openSigned for a value that may simply not be ours: undefined instead of an error. */
export function tryOpenSigned<S extends z.ZodType>(
  apps: Apps,
  schema: S,
  raw: string | undefined,
): { app: CometChatApp; value: z.infer<S> } | undefined {
  try {
    return openSigned(apps, schema, raw);
  } catch (error) {
    if (error instanceof InputError) return undefined;
    throw error;
  }
}

const RoleValue = z.object({ role: RoleIdSchema });

/** An "Edit permissions" button's value: the role, signed with its app like every value. */
export function roleButtonValue(app: CometChatApp, role: string) {
  return signedValue(app, { role });
}

/** Reads an "Edit permissions" button's value back: the app it was for, and the role. */
export function openRoleButton(
  apps: Apps,
  raw: string | undefined,
): { app: CometChatApp; role: string } {
  const { app, value } = openSigned(apps, RoleValue, raw);
  return { app, role: value.role };
}

/**
 * An option's value holds 75 characters, and a value's signature alone takes 43: an option carries
 * the first 16 (96 bits), still far beyond guessing, before its text.
 */
const OPTION_SIGNATURE_LENGTH = 16;

/** An option's value for Slack to carry back: `<signature>.<text>`, signed for `app`. */
export function signedOption(app: CometChatApp, text: string): string {
  return `${optionSignature(app, text)}.${text}`;
}

/**
 * Opens an option's value that came back from Slack: the app is the one whose signature it carries,
 * so a value edited to name another role or app, or made by hand, is refused.
 */
export function openSignedOption(
  apps: Apps,
  raw: string | undefined,
): { app: CometChatApp; text: string } {
  const text = raw ?? '';
  if (text.indexOf('.') !== OPTION_SIGNATURE_LENGTH) throw new InputError(UNSIGNED_REFUSAL);
  const signature = text.slice(0, OPTION_SIGNATURE_LENGTH);
  const signed = text.slice(OPTION_SIGNATURE_LENGTH + 1);
  const app = apps.all.find((candidate) => sameText(optionSignature(candidate, signed), signature));
  if (!app) throw new InputError(UNSIGNED_REFUSAL);
  return { app, text: signed };
}

/**
 * What an option's signature covers: the app's name and the text, after a line that no value's body
 * (always JSON) starts with, so that neither signature can be passed off as the other.
 */
function optionSignature(app: CometChatApp, text: string): string {
  return app.sign(`option\n${app.name}\n${text}`).slice(0, OPTION_SIGNATURE_LENGTH);
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** What a reply says about its app: the app's name when several are configured, else nothing. */
export function appNameIfMultiple(
  apps: Pick<Apps, 'multiple'>,
  app: Pick<CometChatApp, 'name'>,
): string | undefined {
  return apps.multiple ? app.name : undefined;
}

/** How a view writes a button value for Slack to carry back: signed for one app. */
export type ValueWriter = (payload: Record<string, unknown>) => string;

/**
 * Every value carries its app and its app's signature, whether one app is configured or several: one
 * way to write them, and a value that stays good when a second app is added.
 */
export function valueWriter(app: CometChatApp): ValueWriter {
  return (payload) => signedValue(app, payload);
}
