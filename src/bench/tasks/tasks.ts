/**
 * The tasks over the sample repository (test/fixtures/task-repo): each a goal every policy gets
 * and a machine check of the outcome (tests run with node / python3 / bash, file contents,
 * nothing else changed). Several start from a real defect of the sample (a failing test, a
 * failing lint, a wrong price); the others are feature work and refactors.
 */
import { all, contains, hiddenPy, hiddenTs, lacks, nowhere, onlyChanged, passes, pyTests, sh, tsTests, type Check } from "./checks";
import type { Goal } from "./goal";

export interface Task {
  id: string;
  /** What kind of work it is (for the table). */
  kind: string;
  goal: Goal;
  check: Check;
}

export function createTasks(original: string): Task[] {
  const unchangedBut = (...files: string[]) => onlyChanged(original, ...files);
  return [
    {
      id: "rename-subtotal",
      kind: "rename across files",
      goal: {
        prompt: "Rename the function computeSubtotal to sumLineItems everywhere (definition, imports, calls, tests).",
        steps: [
          { kind: "rename", word: "computeSubtotal", to: "sumLineItems" },
          { kind: "run", command: "bash scripts/test.sh ts test/pricing.test.ts test/orders.test.ts test/report.test.ts" },
        ],
      },
      check: all(nowhere(/\bcomputeSubtotal\b/), contains("src/pricing.ts", "export function sumLineItems("), tsTests("test/pricing.test.ts", "test/orders.test.ts", "test/report.test.ts")),
    },
    {
      id: "csv-quoted-fields",
      kind: "fix a bug given a failing test",
      goal: {
        prompt: "test/csv.test.ts fails: parseCsv splits quoted fields that contain commas. Make parseCsv use parseLine for each line, and run the test.",
        steps: [
          { kind: "run", command: "bash scripts/test.sh ts test/csv.test.ts" },
          { kind: "replace", file: "src/csv.ts", from: '.map((line) => line.split(","));', lines: ["    .map(parseLine);"] },
          { kind: "run", command: "bash scripts/test.sh ts test/csv.test.ts" },
        ],
      },
      check: all(tsTests("test/csv.test.ts"), unchangedBut("src/csv.ts")),
    },
    {
      id: "rounding-through-chain",
      kind: "add a parameter through a call chain",
      goal: {
        prompt:
          'Add a `rounding: RoundingMode = "half-up"` parameter to applyTax, quote and placeOrder (last parameter of each), passed down from placeOrder to quote to applyTax, which gives it to roundCents.',
        steps: [
          { kind: "replace", file: "src/pricing.ts", from: 'import { roundCents, type Cents } from "./money";', lines: ['import { roundCents, type Cents, type RoundingMode } from "./money";'] },
          {
            kind: "replace",
            file: "src/pricing.ts",
            from: "export function applyTax(amount: Cents, taxPercent: number): Cents {",
            to: "return roundCents((amount * taxPercent) / 100);",
            lines: ['export function applyTax(amount: Cents, taxPercent: number, rounding: RoundingMode = "half-up"): Cents {', "  return roundCents((amount * taxPercent) / 100, rounding);"],
          },
          {
            kind: "replace",
            file: "src/pricing.ts",
            from: "export function quote(lines: readonly OrderLine[], config: ShopConfig, discount?: Discount): Quote {",
            lines: ['export function quote(lines: readonly OrderLine[], config: ShopConfig, discount?: Discount, rounding: RoundingMode = "half-up"): Quote {'],
          },
          { kind: "replace", file: "src/pricing.ts", from: "const tax = applyTax(taxable, config.taxPercent);", lines: ["  const tax = applyTax(taxable, config.taxPercent, rounding);"] },
          { kind: "insert", file: "src/orders.ts", after: 'import { log } from "./log";', lines: ['import type { RoundingMode } from "./money";'] },
          {
            kind: "replace",
            file: "src/orders.ts",
            from: "export function placeOrder(",
            lines: [
              'export function placeOrder(inventory: Inventory, customer: string, requests: LineRequest[], config: ShopConfig, discount?: Discount, rounding: RoundingMode = "half-up"): Order {',
            ],
          },
          { kind: "replace", file: "src/orders.ts", from: "quote: quote(lines, config, discount),", lines: ["    quote: quote(lines, config, discount, rounding),"] },
          { kind: "run", command: "bash scripts/test.sh ts test/pricing.test.ts test/orders.test.ts" },
        ],
      },
      check: all(
        hiddenTs(
          "__check_rounding.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "../src/config";
import { Inventory } from "../src/inventory";
import { setSink } from "../src/log";
import { placeOrder } from "../src/orders";
import { applyTax } from "../src/pricing";
setSink(() => {});
test("rounding reaches applyTax", () => {
  assert.equal(applyTax(1006, 8.5), 86);
  assert.equal(applyTax(1006, 8.5, "down"), 85);
  const inv = new Inventory();
  inv.add("HG-1001", "Brass hinge 20mm", 1006, 10);
  assert.equal(placeOrder(inv, "Ada", [{ sku: "HG-1001", quantity: 1 }], loadConfig()).quote.tax, 86);
  assert.equal(placeOrder(inv, "Ada", [{ sku: "HG-1001", quantity: 1 }], loadConfig(), undefined, "down").quote.tax, 85);
});
`,
        ),
        tsTests("test/pricing.test.ts", "test/orders.test.ts", "test/report.test.ts"),
        unchangedBut("src/pricing.ts", "src/orders.ts"),
      ),
    },
    {
      id: "add-format-test",
      kind: "add a test",
      goal: {
        prompt: "Add test/format.test.ts with node:test tests of formatCents (thousands separators, negative amounts, the currency prefix) and run it.",
        steps: [
          {
            kind: "create",
            file: "test/format.test.ts",
            content: `import { test } from "node:test";
import assert from "node:assert/strict";
import { formatCents } from "../src/money";

test("formatCents groups thousands", () => {
  assert.equal(formatCents(123456789), "1,234,567.89");
  assert.equal(formatCents(5), "0.05");
});

test("formatCents keeps the sign and the currency", () => {
  assert.equal(formatCents(-1050), "-10.50");
  assert.equal(formatCents(1050, "EUR"), "EUR 10.50");
});
`,
          },
          { kind: "run", command: "bash scripts/test.sh ts test/format.test.ts" },
        ],
      },
      // The new test passes, and it really tests formatCents: with formatCents broken it fails.
      check: all(tsTests("test/format.test.ts"), contains("test/format.test.ts", "formatCents"), async (dir) => {
        const broken = await sh(
          dir,
          `sed -i 's/const sign = cents < 0 ? "-" : "";/const sign = "";/' src/money.ts && grep -q 'const sign = "";' src/money.ts && bash scripts/test.sh ts test/format.test.ts`,
        );
        return broken.code === 0 ? "the new test still passes with formatCents broken (it does not test it)" : undefined;
      }),
    },
    {
      id: "lint-console-log",
      kind: "resolve a failing command",
      goal: {
        prompt: "`bash scripts/lint.sh` fails. Fix what it reports (library code logs through log.info from ./log) and run it again.",
        steps: [
          { kind: "fix", command: "bash scripts/lint.sh", pattern: "^(src/[\\w.-]+):(\\d+): console\\.log", rewrite: (line) => line.replace("console.log(", "log.info(") },
          { kind: "insert", file: "src/report.ts", after: 'import type { Inventory, Item } from "./inventory";', lines: ['import { log } from "./log";'] },
          { kind: "run", command: "bash scripts/lint.sh" },
        ],
      },
      check: all(passes("bash scripts/lint.sh"), tsTests("test/report.test.ts"), unchangedBut("src/report.ts")),
    },
    {
      id: "catalog-price",
      kind: "search first, then edit a 2,000-line file",
      goal: {
        prompt: 'The catalog lists "Zinc corner brace 30mm" at ten times its price. Find its entry and set the price to 595 cents.',
        steps: [{ kind: "replace", find: "Zinc corner brace 30mm", near: "Zinc corner brace 30mm", from: "price:", lines: ["    price: 595,"] }],
      },
      check: all(
        hiddenTs(
          "__check_price.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { searchCatalog } from "../src/catalog";
test("price fixed", () => {
  const [hit] = searchCatalog("zinc corner brace 30mm");
  assert.equal(hit?.price, 595);
});
`,
        ),
        tsTests("test/catalog.test.ts"),
        unchangedBut("src/catalog.ts"),
        async (dir) => {
          const r = await sh(dir, `diff '${original}/src/catalog.ts' src/catalog.ts | grep -c '^[<>]'`);
          return r.out.trim() === "2" ? undefined : `catalog.ts: expected one changed line, diff says ${r.out.trim()} lines`;
        },
      ),
    },
    {
      id: "catalog-add-entry",
      kind: "insert into a 2,000-line file",
      goal: {
        prompt: 'Add a catalog entry right after "Oak cabinet knob 25mm": sku "KN-1999", name "Oak cabinet knob 32mm", category "handles", price 695, weightGrams 140.',
        steps: [
          {
            kind: "insert",
            file: "src/catalog.ts",
            near: 'name: "Oak cabinet knob 25mm"',
            after: "},",
            lines: ["  {", '    sku: "KN-1999",', '    name: "Oak cabinet knob 32mm",', '    category: "handles",', "    price: 695,", "    weightGrams: 140,", "  },"],
          },
        ],
      },
      check: all(
        hiddenTs(
          "__check_entry.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { CATALOG, findEntry } from "../src/catalog";
test("entry added after the 25mm knob", () => {
  assert.deepEqual(findEntry("KN-1999"), { sku: "KN-1999", name: "Oak cabinet knob 32mm", category: "handles", price: 695, weightGrams: 140 });
  const i = CATALOG.findIndex((e) => e.name === "Oak cabinet knob 25mm");
  assert.equal(CATALOG[i + 1]?.sku, "KN-1999");
});
`,
        ),
        tsTests("test/catalog.test.ts"),
        unchangedBut("src/catalog.ts"),
      ),
    },
    {
      id: "catalog-rename-helper",
      kind: "rename in a 2,000-line file and its test",
      goal: {
        prompt: "Rename findEntry to lookupEntry in the catalog module and everything that uses it.",
        steps: [
          { kind: "rename", word: "findEntry", to: "lookupEntry" },
          { kind: "run", command: "bash scripts/test.sh ts test/catalog.test.ts" },
        ],
      },
      check: all(nowhere(/\bfindEntry\b/), contains("src/catalog.ts", "export function lookupEntry("), tsTests("test/catalog.test.ts"), unchangedBut("src/catalog.ts", "test/catalog.test.ts")),
    },
    {
      id: "py-moving-average",
      kind: "fix a bug given a failing test (Python)",
      goal: {
        prompt: "tools/forecast/test_model.py fails: moving_average drops the first window. The second `if i >= window:` in moving_average must be `if i >= window - 1:`. Fix it and run the tests.",
        steps: [
          { kind: "run", command: "bash scripts/test.sh py tools.forecast.test_model" },
          { kind: "replace", file: "tools/forecast/model.py", near: "total -= values[i - window]", from: "if i >= window:", lines: ["        if i >= window - 1:"] },
          { kind: "run", command: "bash scripts/test.sh py tools.forecast.test_model" },
        ],
      },
      check: all(pyTests(), unchangedBut("tools/forecast/model.py")),
    },
    {
      id: "py-rename",
      kind: "rename across files (Python)",
      goal: {
        prompt: "Rename load_rows to read_rows in the forecasting tool (definition, calls, tests).",
        steps: [
          { kind: "rename", word: "load_rows", to: "read_rows", path: "tools" },
          { kind: "run", command: "bash scripts/test.sh py tools.forecast.test_series_io" },
        ],
      },
      check: all(
        nowhere(/\bload_rows\b/),
        contains("tools/forecast/series_io.py", "def read_rows("),
        pyTests("tools.forecast.test_series_io"),
        unchangedBut("tools/forecast/series_io.py", "tools/forecast/test_series_io.py"),
      ),
    },
    {
      id: "py-method-option",
      kind: "add an option through a call chain (Python)",
      goal: {
        prompt:
          'Add `method: str = "average"` to forecast(); with "smooth" it uses the last exponential_smoothing value instead of the moving average. Add a --method option (average|smooth) to the CLI and pass it on.',
        steps: [
          {
            kind: "replace",
            file: "tools/forecast/model.py",
            from: "def forecast(values: Sequence[float], horizon: int, window: int = 4) -> List[float]:",
            lines: ['def forecast(values: Sequence[float], horizon: int, window: int = 4, method: str = "average") -> List[float]:'],
          },
          {
            kind: "replace",
            file: "tools/forecast/model.py",
            from: "    if len(values) < window:",
            to: "base = moving_average(values, window)[-1]",
            lines: [
              '    if method not in ("average", "smooth"):',
              '        raise ValueError(f"unknown method: {method}")',
              '    if method == "smooth" and values:',
              "        base = exponential_smoothing(values)[-1]",
              "    elif len(values) < window:",
              "        base = sum(values) / len(values) if values else 0.0",
              "    else:",
              "        base = moving_average(values, window)[-1]",
            ],
          },
          {
            kind: "insert",
            file: "tools/forecast/cli.py",
            after: 'parser.add_argument("--window", type=int, default=4)',
            lines: ['    parser.add_argument("--method", choices=["average", "smooth"], default="average")'],
          },
          {
            kind: "replace",
            file: "tools/forecast/cli.py",
            from: "result[sku] = forecast(values, args.horizon, args.window)",
            lines: ["        result[sku] = forecast(values, args.horizon, args.window, args.method)"],
          },
          { kind: "run", command: "bash scripts/test.sh py tools.forecast.test_model" },
        ],
      },
      check: all(
        hiddenPy(
          "test__check_method.py",
          `import os, tempfile, unittest
from tools.forecast.model import exponential_smoothing, forecast
from tools.forecast import cli

class MethodTest(unittest.TestCase):
    def test_smooth(self):
        values = [4, 8, 6, 10, 12]
        self.assertEqual(forecast(values, 2, method="smooth"), [round(exponential_smoothing(values)[-1], 4)] * 2)
        self.assertEqual(forecast([2, 4], 1), [3.0])
        with self.assertRaises(ValueError):
            forecast([1], 1, method="median")

    def test_cli_option(self):
        with tempfile.TemporaryDirectory() as d:
            sales, out = os.path.join(d, "s.csv"), os.path.join(d, "o.csv")
            with open(sales, "w") as f:
                f.write("date,A\\n2024-01-01,4\\n2024-01-02,8\\n")
            self.assertEqual(cli.main([sales, out, "--method", "smooth", "--horizon", "1"]), 0)
            with open(out) as f:
                self.assertEqual(f.read().splitlines()[1], "1,5.20")
`,
        ),
        unchangedBut("tools/forecast/model.py", "tools/forecast/cli.py"),
      ),
    },
    {
      id: "py-add-test",
      kind: "add a test (Python)",
      goal: {
        prompt: "Add a test to SmoothingTest in tools/forecast/test_model.py: with alpha=1 the smoothed series equals the data ([3, 9, 4]). Put it after test_bad_alpha and run it.",
        steps: [
          {
            kind: "insert",
            file: "tools/forecast/test_model.py",
            after: "exponential_smoothing([1], alpha=0)",
            lines: ["", "    def test_alpha_one_follows_the_data(self):", "        self.assertEqual(exponential_smoothing([3, 9, 4], alpha=1), [3, 9, 4])"],
          },
          { kind: "run", command: "bash scripts/test.sh py tools.forecast.test_model.SmoothingTest" },
        ],
      },
      check: all(pyTests("tools.forecast.test_model.SmoothingTest.test_alpha_one_follows_the_data"), unchangedBut("tools/forecast/test_model.py")),
    },
    {
      id: "release-path-space",
      kind: "fix a shell script",
      goal: {
        prompt: 'scripts/release.sh fails when OUT_DIR contains a space (try `bash scripts/release.sh "out dir"`). Quote the archive path in the tar command.',
        steps: [
          { kind: "run", command: 'bash scripts/release.sh "out dir"' },
          { kind: "replace", file: "scripts/release.sh", from: "tar -czf $out/$name.tar.gz", lines: ['tar -czf "$out/$name.tar.gz" -C "$staging" "$name"'] },
          { kind: "run", command: 'bash scripts/release.sh "out dir" && tar -tzf "out dir/stockroom-1.4.0.tar.gz" | head -3 && rm -rf "out dir" out' },
        ],
      },
      check: all(
        passes('d=$(mktemp -d) && bash scripts/release.sh "$d/with space" 9.9.9 && tar -tzf "$d/with space/stockroom-9.9.9.tar.gz" | grep -q src/money.ts; s=$?; rm -rf "$d"; exit $s'),
        unchangedBut("scripts/release.sh"),
      ),
    },
    {
      id: "remove-dead-code",
      kind: "delete a function",
      goal: {
        prompt: "Remove the deprecated legacyFormat function (with its doc comment) from src/report.ts; nothing uses it.",
        steps: [
          { kind: "replace", file: "src/report.ts", from: "/** @deprecated", to: "}", lines: [] },
          { kind: "run", command: "bash scripts/test.sh ts test/report.test.ts" },
        ],
      },
      check: all(nowhere(/legacyFormat|@deprecated/), tsTests("test/report.test.ts"), unchangedBut("src/report.ts")),
    },
    {
      id: "inventory-total-value",
      kind: "add a method and its test",
      goal: {
        prompt: "Add a totalValue(): Cents method to Inventory (price × quantity over all items, after the size getter) and a test for it in test/inventory-value.test.ts.",
        steps: [
          {
            kind: "insert",
            file: "src/inventory.ts",
            near: "get size(): number {",
            after: "  }",
            lines: ["", "  /** The value of the stock on hand, in cents. */", "  totalValue(): Cents {", "    return this.list().reduce((sum, item) => sum + item.price * item.quantity, 0);", "  }"],
          },
          {
            kind: "create",
            file: "test/inventory-value.test.ts",
            content: `import { test } from "node:test";
import assert from "node:assert/strict";
import { Inventory } from "../src/inventory";

test("totalValue adds price times quantity", () => {
  const inv = new Inventory();
  assert.equal(inv.totalValue(), 0);
  inv.add("HG-1001", "Brass hinge 20mm", 495, 10);
  inv.add("BR-1100", "Steel shelf bracket 40mm", 895, 3);
  assert.equal(inv.totalValue(), 7635);
});
`,
          },
          { kind: "run", command: "bash scripts/test.sh ts test/inventory-value.test.ts test/inventory.test.ts" },
        ],
      },
      check: all(
        hiddenTs(
          "__check_value.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { Inventory } from "../src/inventory";
test("totalValue", () => {
  const inv = new Inventory();
  inv.add("SC-1200", "Zinc wood screw 30mm", 12, 500);
  inv.reserve("SC-1200", 100);
  assert.equal(inv.totalValue(), 6000);
});
`,
        ),
        tsTests("test/inventory-value.test.ts", "test/inventory.test.ts"),
        unchangedBut("src/inventory.ts", "test/inventory-value.test.ts"),
      ),
    },
    {
      id: "config-threshold",
      kind: "one-line change",
      goal: {
        prompt: "Lower the default lowStockThreshold in src/config.ts from 5 to 3.",
        steps: [{ kind: "replace", file: "src/config.ts", from: "lowStockThreshold: 5,", lines: ["  lowStockThreshold: 3,"] }],
      },
      check: all(
        hiddenTs(
          "__check_config.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "../src/config";
test("threshold", () => assert.equal(loadConfig().lowStockThreshold, 3));
`,
        ),
        unchangedBut("src/config.ts"),
      ),
    },
    {
      id: "order-error-messages",
      kind: "two edits of repeated lines in one file",
      goal: {
        prompt: 'In src/orders.ts, cancelOrder and shipOrder throw "order X is S, not open". Make the messages "cannot cancel order X: it is S" and "cannot ship order X: it is S".',
        steps: [
          {
            kind: "replace",
            file: "src/orders.ts",
            near: "export function cancelOrder(",
            from: "not open`",
            lines: ['  if (order.status !== "open") throw new StockError(`cannot cancel order ${order.id}: it is ${order.status}`, order.lines[0]?.sku ?? "");'],
          },
          {
            kind: "replace",
            file: "src/orders.ts",
            near: "export function shipOrder(",
            from: "not open`",
            lines: ['  if (order.status !== "open") throw new StockError(`cannot ship order ${order.id}: it is ${order.status}`, order.lines[0]?.sku ?? "");'],
          },
          { kind: "run", command: "bash scripts/test.sh ts test/orders.test.ts" },
        ],
      },
      check: all(
        hiddenTs(
          "__check_messages.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "../src/config";
import { Inventory } from "../src/inventory";
import { setSink } from "../src/log";
import { cancelOrder, placeOrder, shipOrder } from "../src/orders";
setSink(() => {});
test("messages", () => {
  const inv = new Inventory();
  inv.add("HG-1001", "Brass hinge 20mm", 495, 10);
  const o = placeOrder(inv, "Ada", [{ sku: "HG-1001", quantity: 1 }], loadConfig());
  shipOrder(inv, o);
  assert.throws(() => cancelOrder(inv, o), /^StockError: cannot cancel order ORD-\\d+: it is shipped$/);
  assert.throws(() => shipOrder(inv, o), /^StockError: cannot ship order ORD-\\d+: it is shipped$/);
});
`,
        ),
        tsTests("test/orders.test.ts"),
        unchangedBut("src/orders.ts"),
      ),
    },
    {
      id: "readme-money",
      kind: "documentation edit",
      goal: {
        prompt: "Update the Money section of README.md: tax is now rounded per order with a choice of rounding mode (half-up by default), and orders of 100.00 or more ship free.",
        steps: [
          {
            kind: "replace",
            file: "README.md",
            from: "All amounts are integer cents.",
            to: "75.00 or more ship free",
            lines: [
              "All amounts are integer cents. Tax is rounded once per order, half up unless another",
              "rounding mode is given. Orders of 100.00 or more ship free; others pay the shipping fee",
              "from `config.ts`.",
            ],
          },
        ],
      },
      check: all(contains("README.md", "Orders of 100.00 or more ship free", "rounding mode is given"), lacks("README.md", "75.00"), unchangedBut("README.md")),
    },
    {
      id: "stock-error-message",
      kind: "search first, then edit",
      goal: {
        prompt: 'Customers see "insufficient stock for SKU". Find where that message is made and change it to "not enough stock for SKU: N requested, M available".',
        steps: [
          {
            kind: "replace",
            find: "insufficient stock for",
            from: "insufficient stock for",
            lines: ["      throw new StockError(`not enough stock for ${item.sku}: ${quantity} requested, ${item.quantity - item.reserved} available`, item.sku);"],
          },
          { kind: "run", command: "bash scripts/test.sh ts test/inventory.test.ts" },
        ],
      },
      check: all(
        hiddenTs(
          "__check_stock.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { Inventory } from "../src/inventory";
test("message", () => {
  const inv = new Inventory();
  inv.add("BR-1100", "Steel shelf bracket 40mm", 895, 3);
  inv.reserve("BR-1100", 1);
  assert.throws(() => inv.reserve("BR-1100", 5), /^StockError: not enough stock for BR-1100: 5 requested, 2 available$/);
});
`,
        ),
        tsTests("test/inventory.test.ts"),
        unchangedBut("src/inventory.ts"),
      ),
    },
    {
      id: "log-order-events",
      kind: "edits in two functions",
      goal: {
        prompt: 'Log "order cancelled" and "order shipped" (log.info with { id }) right after cancelOrder and shipOrder set the new status.',
        steps: [
          { kind: "insert", file: "src/orders.ts", after: 'order.status = "cancelled";', lines: ['  log.info("order cancelled", { id: order.id });'] },
          { kind: "insert", file: "src/orders.ts", after: 'order.status = "shipped";', lines: ['  log.info("order shipped", { id: order.id });'] },
          { kind: "run", command: "bash scripts/test.sh ts test/orders.test.ts" },
        ],
      },
      check: all(
        hiddenTs(
          "__check_log.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { loadConfig } from "../src/config";
import { Inventory } from "../src/inventory";
import { setSink, type LogRecord } from "../src/log";
import { cancelOrder, placeOrder, shipOrder } from "../src/orders";
test("events logged", () => {
  const seen: LogRecord[] = [];
  setSink((r) => seen.push(r));
  const inv = new Inventory();
  inv.add("HG-1001", "Brass hinge 20mm", 495, 10);
  const a = placeOrder(inv, "Ada", [{ sku: "HG-1001", quantity: 1 }], loadConfig());
  const b = placeOrder(inv, "Bob", [{ sku: "HG-1001", quantity: 1 }], loadConfig());
  cancelOrder(inv, a);
  shipOrder(inv, b);
  const msgs = seen.map((r) => r.message + " " + String(r.fields.id));
  assert.ok(msgs.includes("order cancelled " + a.id), msgs.join());
  assert.ok(msgs.includes("order shipped " + b.id), msgs.join());
});
`,
        ),
        unchangedBut("src/orders.ts"),
      ),
    },
    {
      id: "sku-variant-length",
      kind: "change a regular expression",
      goal: {
        prompt: "SKU variants may now have up to 6 characters (e.g. HG-1001-BRASS1). Change the pattern in src/sku.ts.",
        steps: [
          { kind: "replace", file: "src/sku.ts", from: "const PATTERN =", lines: ["const PATTERN = /^([A-Z]{2,3})-(\\d{3,5})(?:-([A-Z0-9]{1,6}))?$/;"] },
          { kind: "run", command: "bash scripts/test.sh ts test/sku.test.ts" },
        ],
      },
      check: all(
        hiddenTs(
          "__check_sku.test.ts",
          `import { test } from "node:test";
import assert from "node:assert/strict";
import { isValidSku, parseSku } from "../src/sku";
test("long variants", () => {
  assert.equal(parseSku("HG-1001-BRASS1").variant, "BRASS1");
  assert.equal(isValidSku("HG-1001-BRASS12"), false);
});
`,
        ),
        tsTests("test/sku.test.ts"),
        unchangedBut("src/sku.ts"),
      ),
    },
    {
      id: "free-shipping-threshold",
      kind: "change across code, test and docs",
      goal: {
        prompt: "Raise free shipping from 75.00 to 100.00: the default in src/config.ts, the README sentence, and the pricing test's big order (12 brackets instead of 10 so it still ships free).",
        steps: [
          { kind: "replace", file: "src/config.ts", from: "freeShippingFrom: 7500,", lines: ["  freeShippingFrom: 10000,"] },
          { kind: "replace", file: "README.md", from: "75.00 or more ship free", lines: ["100.00 or more ship free; others pay the shipping fee from `config.ts`."] },
          {
            kind: "replace",
            file: "test/pricing.test.ts",
            from: 'const big = quote([{ sku: "BR-1100", quantity: 10',
            lines: ['  const big = quote([{ sku: "BR-1100", quantity: 12, unitPrice: 895 }], config);'],
          },
          { kind: "run", command: "bash scripts/test.sh ts test/pricing.test.ts" },
        ],
      },
      check: all(
        contains("src/config.ts", "freeShippingFrom: 10000,"),
        contains("README.md", "100.00 or more ship free"),
        contains("test/pricing.test.ts", "quantity: 12"),
        tsTests("test/pricing.test.ts"),
        unchangedBut("src/config.ts", "README.md", "test/pricing.test.ts"),
      ),
    },
  ];
}
