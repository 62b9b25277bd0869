/** The list of benchmark sections. Add a line per section module (each exports `bench`). */
import type { BenchFn } from "./types";

export function loadSections(register: (name: string, load: () => Promise<BenchFn>) => void): void {
  register("providers", async () => (await import("./providers")).bench);
  register("tools", async () => (await import("./tools")).bench);
  register("edit", async () => (await import("./edit")).bench);
  register("patch", async () => (await import("./patch")).bench);
  register("sandbox", async () => (await import("./sandbox")).bench);
  register("repository-walk", async () => (await import("./repository-walk")).bench);
  register("permissions", async () => (await import("./permissions")).bench);
  register("permissions-adversarial", async () => (await import("./permissions-adversarial")).bench);
  register("diffcheck", async () => (await import("./diffcheck/index")).bench);
  register("watchdog", async () => (await import("./watchdog")).bench);
  register("guidance", async () => (await import("./guidance")).bench);
  register("checkpoints", async () => (await import("./checkpoints")).bench);
  register("compaction", async () => (await import("./compaction")).bench);
  register("tasks", async () => (await import("./tasks/index")).bench);
  register("long-session", async () => (await import("./long-session")).bench);
  register("scale", async () => (await import("./scale")).bench);
  register("startup", async () => (await import("./startup")).bench);
  register("agents", async () => (await import("./background-agents")).bench);
}
