import type { Logger } from 'pino';
import { valueWriter } from '../../apps/apps.ts';
import { revertButton } from '../../changes/index.ts';
import { pageWord, roleWord } from '../command.ts';
import type { RecentChange, SharedDeps } from '../deps.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { asJob } from '../job.ts';
import { createAuditCommand, registerAuditList } from './audit-trail.ts';
import { type AuditQuery, auditSummaryLine } from './audit-view.ts';
import { sweepPending } from './pending-sweep.ts';

const USAGE = '`/cometchat audit [role] [page]`';

/** `audit [role] [page]`, in either order: a number is the page. */
export function parseAuditWords(words: readonly string[]): AuditQuery | Refusal {
  const usage = new Refusal(`Usage: ${USAGE}.`);
  if (words.length > 2) return usage;
  let role: string | undefined;
  let page = 1;
  for (const word of words) {
    const asPage = /^\d+$/.test(word) ? pageWord(word) : undefined;
    if (asPage !== undefined) page = asPage;
    else if (role !== undefined) return usage;
    else {
      const checked = roleWord(word);
      if (checked instanceof Refusal) return checked;
      role = checked;
    }
  }
  return { role, page };
}

/**
 * The Home tab's "recent changes": the last `limit` records, one line each, an applied one with
 * its _Revert_ (a record of an app no longer configured has none).
 */
export function recentChanges(deps: Pick<SharedDeps, 'store' | 'apps'>) {
  return async (limit: number): Promise<RecentChange[]> =>
    (await deps.store.listAudit({ offset: 0, limit })).records.map((record) => {
      const app = deps.apps.byName(record.app);
      const revert = app && revertButton(valueWriter(app), record);
      return { line: auditSummaryLine(record), app: record.app, revert };
    });
}

export const audit: Feature = {
  subcommands: [
    subcommand({
      names: ['audit'],
      usage: `${USAGE} - recent permission changes, newest first`,
      parse: parseAuditWords,
      run: (query, { respond, app, deps }) => createAuditCommand(deps)(app, query, respond),
    }),
  ],
  register: registerAuditList,
  // Updates in flight when a replica stopped get their records (another replica's may outlive
  // it, so this runs every minute, not only at start); posts Slack has not taken are tried again.
  // Each its own request: a reference and a logger naming it.
  periodic: (deps, log: Logger) =>
    Promise.all([
      asJob(
        log,
        { task: 'pending-sweep' },
        (jobLog) => sweepPending({ ...deps, afterMs: 2 * deps.budgetMs, log: jobLog }),
        deps.now,
      ),
      asJob(log, { task: 'audit-posts' }, (jobLog) => deps.audit.retryPosts(jobLog), deps.now),
    ]),
};
