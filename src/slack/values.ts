import { z } from 'zod';
import { InputError } from '../voice/failure.ts';

/** The highest page a command or a page button may ask for. */
export const MAX_PAGE = 10_000;
export const PageSchema = z.number().int().min(1).max(MAX_PAGE);

/**
 * Button values and `private_metadata` come back from Slack as strings the client could have
 * altered: they are parsed like any other external input.
 */
export function parseValue<S extends z.ZodType>(schema: S, raw: string | undefined): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(raw ?? '');
  } catch {
    throw new InputError('That button is out of date or damaged. Run the command again.');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new InputError('That button is out of date or damaged. Run the command again.');
  return parsed.data;
}
