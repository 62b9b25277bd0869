// DUMP (temporary)
import { cpSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, it } from "vitest";
import { listCustomizations } from "../../src/node/customizations";
import { addMarketplace, installPlugin } from "../../src/node/plugins";

const FIX = join(__dirname, "..", "fixtures", "customization-shapes");
const temps: string[] = [];
afterAll(() => temps.forEach((t) => rmSync(t, { recursive: true, force: true })));

describe("dump", () => {
  it("dumps", async () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "yoke-shapes-")));
    temps.push(dir);
    cpSync(FIX, dir, { recursive: true });
    const home = join(dir, "home");
    addMarketplace(home, { source: "directory", path: join(dir, "market") });
    installPlugin(home, "doc-kit@shapes-market");
    installPlugin(home, "lint-kit@shapes-market");
    const l = await listCustomizations({ cwd: join(dir, "ws"), home, trusted: true, builtinDir: null });
    for (const i of l.items) console.log(`${i.kind}\t${i.name}\t${i.origin}\t${i.state}\t${i.inForce}\t${i.source}\t${i.why}`);
    for (const p of l.problems) console.log(`PROBLEM ${p.at}: ${p.message}`);
    console.log(JSON.stringify(l.plugins.map((p) => ({ id: p.id, c: p.components, programs: p.programs, problems: p.problems }))));
  });
});
