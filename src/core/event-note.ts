/**
 * What a mechanism says about one of its events, for a person: the panel shows it as a notice in
 * the transcript, the CLI as a line. Each mechanism describes its own events in its folder
 * (`describe.ts`); describe-event.ts lists them by event type.
 */
import type { EventOf, SessionEventType } from "./events";

export interface EventNote {
  level: "info" | "warning" | "error";
  text: string;
  /** The CLI's mark before the text ("⚡"); without one, the level's; "" for none (the text has its own). */
  mark?: string;
  /** A routine confirmation (a change the permission mode accepted): a terse view (the CLI) leaves it out. */
  routine?: true;
  /** Said beside the work, not in it: the CLI writes it on stderr with the footer, so stdout stays the answer and the activity. */
  aside?: true;
}

/** A mechanism's describe: undefined when the event is not worth a line (a complete checkpoint, a successful step). */
export type Describe<K extends SessionEventType> = (e: EventOf<K>) => EventNote | undefined;
