/**
 * Labels every host shows the same way (panel, notification, terminal, ACP). Apart from
 * messages.ts (which re-exports them) so the CLI and ACP bundles need not build the panel
 * protocol's schemas to print a question.
 */

/** The two answers of a question for the whole run (`forRun`), as every host labels them (panel, notification, terminal, ACP). */
export const FOR_RUN_CHOICES = { allow: "Allow for this run", ask: "Ask each time" } as const;
