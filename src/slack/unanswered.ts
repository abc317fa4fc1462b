import type { AnyMiddlewareArgs, Middleware } from '@slack/bolt';
import { currentRequestIfAny } from '../request-context.ts';
import { ackClockIn } from './ack-clock.ts';
import { factsOf } from './body-facts.ts';

// Bolt leaves a request no listener acknowledged unanswered: over HTTP it logs an error after
// three seconds and answers 404, and Slack shows the person its own failure. A body of a shape
// Slack sends can still name an action, a view, a shortcut or a command no listener is
// registered for (a request made by hand, a kind of payload the app never asked for), and a
// listener can fail before it acknowledges (a view submission whose metadata cannot be read).

/**
 * Last before the listeners: once they are done, a request none of them acknowledged is
 * acknowledged here, empty, and logged; one whose listener failed first is acknowledged before
 * the failure goes on to the error handler, which tells the person. A request already answered
 * (its clock says so) is left alone.
 */
export function acknowledgeUnanswered(): Middleware<AnyMiddlewareArgs> {
  return async (args) => {
    const answer = async (why: string) => {
      const clock = ackClockIn(args.context);
      if (!('ack' in args) || args.ack === undefined || clock === undefined || clock.answered()) {
        return;
      }
      currentRequestIfAny()?.log.info({ kind: factsOf(args.body).kind }, `${why}: acknowledged`);
      await args.ack();
    };
    try {
      await args.next();
    } catch (error) {
      await answer('request failed before its acknowledgement');
      throw error;
    }
    await answer('request taken by no listener');
  };
}
