// The agent's todo list (from todo_write), as a checklist.
import type { TodoView } from "../../src/protocol/messages";
import { el, icon } from "../ui/dom";

const ICON: Record<TodoView["status"], string> = { pending: "circle-large-outline", in_progress: "arrow-circle-right", completed: "pass-filled" };

export function renderTodos(todos: TodoView[]): HTMLElement {
  const done = todos.filter((t) => t.status === "completed").length;
  return el("div", { class: "todos", "data-testid": "todos" }, [
    el("div", { class: "todos-title" }, [icon("checklist"), ` Todos ${done}/${todos.length}`]),
    el(
      "ul",
      {},
      todos.map((t) => el("li", { class: `todo ${t.status}`, "data-status": t.status }, [icon(ICON[t.status]), el("span", {}, [t.content])])),
    ),
  ]);
}
