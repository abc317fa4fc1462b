import type { Logger } from 'pino';
import { appNameIfMultiple, valueWriter } from '../../apps/apps.ts';
import { revertButton } from '../../changes/index.ts';
import { currentRequest } from '../../request-context.ts';
import { pageWord, roleWord } from '../command.ts';
import type { RecentChange, SharedDeps } from '../deps.ts';
import { type Feature, Refusal, subcommand } from '../feature.ts';
import { asJob } from '../job.ts';
import {
  createAuditExport,
  EXPORT_USAGE,
  type ExportWords,
  isExport,
  parseExportWords,
} from './audit-export.ts';
import { createAuditCommand, registerAuditList } from './audit-trail.ts';
import { type AuditQuery, auditSummaryLine } from './audit-view.ts';
import { sweepPending } from './pending-sweep.ts';
import { pruneTrail } from './retention.ts';

const USAGE = '`/cometchat audit [role] [page]`';

/** `audit [role] [page]`, in either order (a number is the page), or `audit export [bounds]`. */
export function parseAuditWords(words: readonly string[]): AuditQuery | ExportWords | Refusal {
  if (words[0] === 'export') return parseExportWords(words.slice(1));
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
      usage: `${USAGE} - recent permission changes, newest first; ${EXPORT_USAGE} - the trail as a CSV file, in a direct message`,
      parse: parseAuditWords,
      progress: (words) => (isExport(words) ? 'Writing the audit trail to a file…' : undefined),
      run: (words, { body, respond, app, deps }) => {
        if (!isExport(words)) return createAuditCommand(deps)(app, words, respond);
        const asker = {
          userId: body.user_id,
          app: app.name,
          appName: appNameIfMultiple(deps.apps, app),
          respond,
          log: currentRequest().log,
        };
        return createAuditExport(deps)(words, asker);
      },
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
      // Daily, on one replica (AUDIT_RETENTION_DAYS).
      asJob(
        log,
        { task: 'audit-retention' },
        (jobLog) =>
          pruneTrail({
            ...deps,
            days: deps.auditRetentionDays,
            appNames: deps.apps.all.map((app) => app.name),
            log: jobLog,
          }),
        deps.now,
      ),
    ]),
};
