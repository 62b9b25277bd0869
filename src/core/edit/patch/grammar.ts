/**
 * The V4A patch format as a Lark grammar, for offering `apply_patch` as a freeform tool (OpenAI's
 * custom tools with a context-free grammar, GPT-5 models): the model's output is constrained to
 * the envelope parse.ts reads. Written from OpenAI's published description of the format
 * (docs/edits.md): an envelope of file sections; an added file is all `+` lines; an update has an
 * optional move, then `@@` headers, context (` `), removed (`-`) and added (`+`) lines and
 * `*** End of File` markers in any order (parse.ts groups them into chunks and says what is wrong).
 *
 * Kept to what every Lark reader takes: no imports, terminals as regular expressions.
 */
export const V4A_LARK_GRAMMAR = String.raw`start: "*** Begin Patch" NL section+ "*** End Patch" NL?

section: added_file | deleted_file | updated_file

added_file: "*** Add File: " PATH NL plus_line*
deleted_file: "*** Delete File: " PATH NL
updated_file: "*** Update File: " PATH NL moved? body_line*

moved: "*** Move to: " PATH NL
body_line: at_line | space_line | minus_line | plus_line | end_of_file
at_line: "@@" AFTER_AT? NL
space_line: " " TEXT? NL
minus_line: "-" TEXT? NL
plus_line: "+" TEXT? NL
end_of_file: "*** End of File" NL

PATH: /[^\r\n]+/
TEXT: /[^\r\n]+/
AFTER_AT: / [^\r\n]*/
NL: /\r?\n/
`;
