import type { UserGroup } from './account-model.ts';
import { everyPage } from './every-page.ts';
import { onBehalfOf, Refused, segment } from './refusals.ts';
import { GroupListResponseSchema } from './schemas.ts';
import type { Send, Sender } from './send.ts';

// Groups, on the REST API's host: `/v3/groups` (live-api-notes.md, "Groups"): the groups a user
// is in, read on their behalf, and bans. A ban is a POST, which the host's ky instance does not
// retry (ky-instance.ts): a repeat after a lost answer would be refused `ERR_ALREADY_BANNED`.

/** The service's largest page: a user's groups in as few trips as can be. */
const PER_PAGE = 1_000;

/** Arrow properties, not methods over `this`: a caller may well pass one around on its own. */
export class GroupRequests {
  readonly #send: Send;
  readonly #underOneRef: Sender['underOneRef'];

  constructor({ send, underOneRef }: Sender) {
    this.#send = send;
    this.#underOneRef = underOneRef;
  }

  /**
   * Listed on the user's behalf, each group says whether they joined it (`hasJoined`) and their
   * scope; those they joined are theirs. A deactivated user is `not_found` (`ERR_UID_NOT_FOUND`).
   */
  listUserGroups = (uid: string) =>
    this.#underOneRef(async () => {
      const groups = await everyPage(async (page) => {
        const { data, meta } = await this.#send('listUserGroups', ({ api }) => {
          // Without the header the list is everyone's groups, none of them "joined".
          if (uid === '') throw new Refused('the uid is empty');
          return api
            .get('groups', { searchParams: { page, perPage: PER_PAGE }, headers: onBehalfOf(uid) })
            .json(GroupListResponseSchema);
        });
        return { data, pagination: meta };
      });
      return groups
        .filter((group) => group.hasJoined === true)
        .map(
          (group): UserGroup => ({
            guid: group.guid,
            name: group.name ?? group.guid,
            type: group.type ?? 'public',
            scope: group.scope ?? undefined,
          }),
        );
    });

  /** Any 2xx is the ban; its words are not needed. */
  banGroupMember = async (guid: string, uid: string) => {
    await this.#send('banGroupMember', ({ api }) => api.post(banPath(guid, uid)).text());
  };

  unbanGroupMember = async (guid: string, uid: string) => {
    await this.#send('unbanGroupMember', ({ api }) => api.delete(banPath(guid, uid)).text());
  };
}

function banPath(guid: string, uid: string): string {
  return `groups/${segment(guid, 'guid')}/bannedusers/${segment(uid, 'uid')}`;
}
