import type { Pagination } from './schemas.ts';

/**
 * Every item of a paged list, reading page after page until one is empty or the last by the
 * pagination (a list answered without pagination is one page). The caller runs it under one
 * reference (`underOneRef`): the pages are one read.
 */
export async function everyPage<T>(
  pageOf: (page: number) => Promise<{ data: T[]; pagination?: Pagination | undefined }>,
): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page += 1) {
    const { data, pagination } = await pageOf(page);
    items.push(...data);
    if (data.length === 0 || pagination === undefined || page >= pagination.total_pages) {
      return items;
    }
  }
}
