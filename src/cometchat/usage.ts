import { toUsage, type Usage, type UsageRange } from './model.ts';
import { UsageResponseSchema } from './schemas.ts';
import type { RequestOptions, Send, Sender } from './send.ts';

export interface UsageOperations {
  /** The app's usage over the range: audio, video and recorded minutes, active and concurrent users. */
  getUsage(range: UsageRange, options?: RequestOptions): Promise<Usage>;
}

export class UsageRequests implements UsageOperations {
  readonly #send: Send;

  constructor({ send }: Sender) {
    this.#send = send;
  }

  /**
   * `GET /v3/stats` on the API host. The dates are documented as Unix time with an example in
   * milliseconds; the service takes either, and seconds are what every other v3 filter takes.
   */
  getUsage = async (range: UsageRange, request?: RequestOptions) => {
    const searchParams = { fromDate: Math.floor(range.fromDate), toDate: Math.floor(range.toDate) };
    const { data } = await this.#send(
      'getUsage',
      ({ api }) => api.get('stats', { searchParams }).json(UsageResponseSchema),
      request,
    );
    return toUsage(data.metrics);
  };
}
