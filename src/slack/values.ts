import { z } from 'zod';

/** The highest page a command or a page button may ask for. */
export const MAX_PAGE = 10_000;
export const PageSchema = z.number().int().min(1).max(MAX_PAGE);
