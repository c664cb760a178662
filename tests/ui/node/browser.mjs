// Drives the example chat page in Debian's Chromium (playwright-core, no downloaded browser).
//
//   node browser.mjs URL PROMPT1 PROMPT2
// stdout: JSON {"turns": [{"texts": [...], "tools": [{"input", "output", "state"}], "status"}, ...]}
// after each turn has finished streaming (useChat's status back to "ready").
import { chromium } from "playwright-core";

const [url, ...prompts] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
});
const errors = [];
try {
  const page = await browser.newPage();
  page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
  await page.goto(url);
  const turns = [];
  for (const prompt of prompts) {
    await page.fill("#prompt", prompt);
    await page.click("#send");
    // streaming starts, then ends: the status leaves "ready" and comes back to it (or errors)
    await page.waitForSelector('[data-status="submitted"], [data-status="streaming"]', { timeout: 10000 }).catch(() => {});
    await page.waitForSelector('[data-status="ready"], [data-status="error"]', { timeout: 30000 });
    const last = page.locator('[data-testid="message-assistant"]').last();
    turns.push({
      status: await page.getAttribute('[data-testid="status"]', "data-status"),
      error: await page.locator('[data-testid="error"]').allTextContents(),
      texts: await last.locator('[data-testid="text"]').allTextContents(),
      tools: await last.locator('[data-testid="tool-call"]').evaluateAll((nodes) =>
        nodes.map((n) => ({
          state: n.dataset.state,
          input: n.querySelector('[data-testid="tool-input"]')?.textContent ?? null,
          output: n.querySelector('[data-testid="tool-output"]')?.textContent ?? null,
        })),
      ),
      users: await page.locator('[data-testid="message-user"]').allTextContents(),
    });
  }
  process.stdout.write(JSON.stringify({ turns, errors }));
} finally {
  await browser.close();
}
