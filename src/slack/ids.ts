// Every action_id, callback_id and block_id the app uses, defined once so that a view and the
// listener that reads it cannot drift apart.

export const COMMAND = '/cometchat';

export const ACTIONS = {
  rolesPage: 'roles_page',
  editPermissions: 'edit_permissions',
  roleDetails: 'role_details',
  shareRoles: 'share_roles',
  shareCall: 'share_call',
  callParticipants: 'call_participants',
  participantsPage: 'participants_page',
  permissionsCategory: 'perms_category',
  permissionsField: 'perms_field',
  permissionsApplyGroup: 'perms_apply_group',
  /** The editor's "Back to the default": the keys of the category to unset. */
  permissionsUnset: 'perms_unset',
  /**
   * _Edit scope permissions_ (on the group card): opens the editor on a group's scope; its value
   * is `signedValue(app, { guid, scope })` (a guid as CometChat stores it, one of the three
   * scopes); the permissions feature registers its listener.
   */
  editScopePermissions: 'edit_scope_permissions',
  auditPage: 'audit_page',
  callsPage: 'calls_page',
  shareCalls: 'share_calls',
  callDetails: 'call_details',
  approveChange: 'approve_change',
  rejectChange: 'reject_change',
  /** Followed by `:<app>`: one per other app, in the same actions block. */
  promoteChange: 'promote_change',
  /**
   * An applied change's _Revert_, followed by `:<ref>` (several in one list); its value is the
   * record's ref, signed for its app.
   */
  revertChange: 'revert_change',
  /** The Home tab's role pickers; an option's value is its role, signed for its app. */
  homeEditRole: 'home_edit_role',
  homeFindCalls: 'home_find_calls',
  homeLookupCall: 'home_lookup_call',
  homeHelp: 'home_help',
  homeLookupUser: 'home_lookup_user',
  userDetails: 'user_details',
  openInCometChat: 'open_in_cometchat',
  usersPage: 'users_page',
  userCalls: 'user_calls',
  userChangeRole: 'user_change_role',
  userAccount: 'user_account',
  /** A card's _Sign out everywhere_; its value is the uid, signed for its app. */
  userSignOut: 'user_sign_out',
  /** A session's _Revoke_ on a card; its value is the uid and the session's fingerprint, signed. */
  userRevokeSession: 'user_revoke_session',
  /** A card's _Contain…_ (an account in trouble); its value is the uid, signed for its app. */
  userContain: 'user_contain',
  /** A channel's subscription's "Remove"; its value is the subscription's id, signed. */
  removeSubscription: 'remove_subscription',
  /** The moderation queue: its pages, an item's decision (`:<message id>`) and Details, "Decide several". */
  moderationPage: 'moderation_page',
  moderationDecide: 'moderation_decide',
  moderationDetails: 'moderation_details',
  moderationBulk: 'moderation_bulk',
  /** The moderation rules' page buttons; the value is the page, signed for the app. */
  rulesPage: 'rules_page',
  /** Followed by `:<app>:<rule id>`: a rule's _Promote to <app>_, one per rule and other app. */
  promoteRule: 'promote_rule',
  /** A moderation alert's _Claim_; its value is the alert's event id, signed for its app. */
  claimModerationAlert: 'moderation_alert_claim',
  /**
   * A blocked-message alert's _Review_: the queue's Details of the item, for a moderator. Its
   * value, signed for its app, is the queue's item value: `{ m }`, the message's id.
   */
  reviewModerationItem: 'moderation_review',
  /** A user's messages: Older and Newer; each carries the filters and CometChat's cursor, signed. */
  messagesPage: 'messages_page',
  /** A message's _Delete_, followed by `:<message id>`; "Delete several…" of the page. */
  messagesDelete: 'messages_delete',
  messagesDeleteSeveral: 'messages_delete_several',
  /** A group's card: Members (with a scope filter) and Banned, and their pages; a list's Card. */
  groupMembersPage: 'group_members_page',
  groupBannedPage: 'group_banned_page',
  groupDetails: 'group_details',
  groupsPage: 'groups_page',
  /** A member's buttons in a group's member list (one actions block each); Unban on the banned. */
  groupMemberScope: 'group_member_scope',
  groupMemberKick: 'group_member_kick',
  groupMemberBan: 'group_member_ban',
  groupMemberUnban: 'group_member_unban',
  /**
   * Type-ahead (`external_select`, answered by `app.options`): the user select of the users
   * feature's form, and those of the call lookup form.
   */
  userSearch: 'user_search',
  callUserSearch: 'call_user_search',
} as const;

export const CALLBACKS = {
  lookupCallMessage: 'lookup_call_message',
  lookupCallGlobal: 'lookup_call_global',
  lookupCallModal: 'lookup_call_modal',
  participantsModal: 'call_participants_modal',
  permissionsEditor: 'perms_editor',
  permissionsConfirm: 'perms_confirm',
  rejectReason: 'reject_reason',
  userRolePick: 'user_role_pick',
  /** What a containment does besides revoking and deactivating; its review follows. */
  userContainOptions: 'user_contain_options',
  lookupUserMessage: 'lookup_user_message',
  lookupUserModal: 'lookup_user_modal',
  /** The moderation queue's "Decide several": the choice, then its review. */
  moderationBulkPick: 'moderation_bulk_pick',
  moderationBulkApply: 'moderation_bulk_apply',
  /** A user's messages to delete: the choice, then (permanently) the review before the last confirmation. */
  messagesDeleteChoose: 'messages_delete_choose',
  messagesDeletePermanent: 'messages_delete_permanent',
  lookupGroupMessage: 'lookup_group_message',
  /** A member's new scope, picked; its review follows. */
  groupScopePick: 'group_scope_pick',
} as const;

export const BLOCKS = {
  lookupSession: 'lookup_session',
  lookupOnBehalfOf: 'lookup_on_behalf_of',
  lookupApp: 'lookup_app',
  lookupUser: 'lookup_user',
  lookupFilters: 'lookup_filters',
  lookupStatus: 'lookup_status',
  lookupType: 'lookup_type',
  lookupMode: 'lookup_mode',
  lookupTo: 'lookup_to',
  lookupFlags: 'lookup_flags',
  lookupSince: 'lookup_since',
  lookupUntil: 'lookup_until',
  /** The selects beside the user id and the on-behalf-of uid (`ACTIONS.callUserSearch`). */
  lookupUserPick: 'lookup_user_pick',
  lookupOnBehalfOfPick: 'lookup_on_behalf_of_pick',
  /** A containment's choice: ban from the groups (checkbox `ban`), delete since (`since`). */
  containGroups: 'contain_groups',
  containSince: 'contain_since',
} as const;

/**
 * The Workflow Builder steps the app offers (`functions` in manifest.yml, one `app.function`
 * each): the step's callback id, which Slack sends back in `function_executed`.
 */
export const FUNCTIONS = {
  lookupUser: 'lookup_cometchat_user',
  lookupCall: 'lookup_cometchat_call',
  changeUserRole: 'change_cometchat_user_role',
  changeUserAccount: 'change_cometchat_user_account',
} as const;
