// `page` and `perPage` as the v3 lists take them (calls, users, friends, blocked users): page 1
// and 100 a page by default, at most 1,000 a page. The role list is older and has no maximum
// (roles.ts).

export const DEFAULT_PER_PAGE = 100;
export const MAX_PER_PAGE = 1_000;
const MAX_PAGE = 1_000_000;

export interface Paging {
  page: number;
  perPage: number;
}

function whole(value: string | undefined, fallback: number, max: number): number | undefined {
  if (value === undefined) return fallback;
  if (!/^[1-9][0-9]{0,6}$/.test(value)) return undefined;
  const number = Number(value);
  return number <= max ? number : undefined;
}

/** The page asked for, or undefined with the problems written into `details` (for a 400). */
export function readPaging(
  query: Record<string, string>,
  details: Record<string, string[]>,
): Paging | undefined {
  const page = whole(query.page, 1, MAX_PAGE);
  const perPage = whole(query.perPage, DEFAULT_PER_PAGE, MAX_PER_PAGE);
  if (page === undefined) details.page = ['The page must be a positive integer.'];
  if (perPage === undefined) {
    details.perPage = [`The perPage must be a positive integer of at most ${MAX_PER_PAGE}.`];
  }
  return page === undefined || perPage === undefined ? undefined : { page, perPage };
}

/** One page of `items` with the pagination every v3 list carries; past the end it is empty. */
export function pageOf<T>(items: readonly T[], { page, perPage }: Paging) {
  const data = items.slice((page - 1) * perPage, page * perPage);
  return {
    data,
    meta: {
      pagination: {
        total: items.length,
        count: data.length,
        per_page: perPage,
        current_page: page,
        total_pages: Math.max(1, Math.ceil(items.length / perPage)),
      },
    },
  };
}
