/** todo_write: replaces the session's todo list. */
import { z } from "zod";
import { defineTool } from "./types";
import { builtinSchema } from "./schema-table";

const todoItem = () =>
  z.object({
    content: z.string().min(1).describe("What to do, as a short imperative sentence."),
    status: z.enum(["pending", "in_progress", "completed"]),
    activeForm: z.string().optional().describe("Present-continuous form shown while in progress."),
  });

/** One item of the todo list. */
export type Todo = z.infer<ReturnType<typeof todoItem>>;

const schema = builtinSchema("todo_write", () =>
  z.object({
    todos: z.array(todoItem()).refine((todos) => todos.filter((t) => t.status === "in_progress").length <= 1, {
      message: 'at most one item may have status "in_progress" at a time. Mark the others "pending" (not started) or "completed" (done)',
    }),
  }),
);

const MARK: Record<Todo["status"], string> = { pending: "[ ]", in_progress: "[>]", completed: "[x]" };

export function renderTodos(todos: readonly Todo[]): string {
  if (todos.length === 0) return "Todo list cleared (no items).";
  const count = (s: Todo["status"]) => todos.filter((t) => t.status === s).length;
  const head = `Todo list (${todos.length} item${todos.length === 1 ? "" : "s"}: ${count("completed")} completed, ${count("in_progress")} in progress, ${count("pending")} pending):`;
  return [head, ...todos.map((t, i) => `${MARK[t.status]} ${i + 1}. ${t.content}`)].join("\n");
}

export const todoWriteTool = defineTool({
  name: "todo_write",
  description: "Keep a todo list for multi-step work: send the whole list each time (it replaces the previous one), " + "at most one item in_progress; mark an item completed as soon as it is done.",
  deferred: true,
  brief: "keep a todo list for multi-step work (shown to the user)",
  schema,
  permission: "TodoWrite",
  permissionClass: "session",
  capabilities: {},
  kind: "think",
  summarize: (i) => (Array.isArray(i.todos) ? `${i.todos.length} item${i.todos.length === 1 ? "" : "s"}` : ""),
  timeoutMs: 5_000,
  hookInput: (a) => ({ todos: a.todos }),
  hookResponse: (a) => ({ newTodos: a.todos }),
  async run(args, ctx) {
    ctx.record({ type: "todos", todos: args.todos.map((t) => ({ content: t.content, status: t.status })) });
    return { text: renderTodos(args.todos), meta: { todos: args.todos } };
  },
});
