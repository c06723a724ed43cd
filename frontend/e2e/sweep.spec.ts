// Sweeps in the browser: upload two sweep bundles, compare them, read the matrix (relative and
// absolute), the line chart and the fio log chart, and make the report for email.
// Bundles: datasets/sweep-fs-dio (real sweeps made by datasets/make-sweeps.sh), or, without them,
// two tiny sweeps made here with the collector (needs fio).
import { expect, test } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

function sweepBundles(): string[] {
  const dir = path.join(repo, 'datasets', 'sweep-fs-dio');
  const found = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.iolens.tar.gz')).sort() : [];
  if (found.length >= 2) return found.slice(0, 2).map((f) => path.join(dir, f));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'iolens-e2e-sweep-'));
  return ['e2e-sweep-a', 'e2e-sweep-b'].map((label) => {
    const plan = path.join(tmp, `${label}.toml`);
    fs.writeFileSync(
      plan,
      `label = "${label}"\nrepeat = 3\n[fio]\nargs = "--name=s --filename=${path.join(tmp, label)}.dat --size=2m --ioengine=psync --runtime=1"\nlogs = 50\n[sweep]\nrw = ["randread", "randwrite"]\niodepth = [1, 8]\n`,
    );
    const out = path.join(tmp, `${label}.iolens.tar.gz`);
    execFileSync('uv', ['run', '--project', repo, 'iolens-collect', 'sweep', plan, '-o', out], { cwd: repo, stdio: 'pipe' });
    return out;
  });
}

test('upload two sweeps: the matrix, the line chart, the fio logs and the report', async ({ page }) => {
  const bundles = sweepBundles();
  await page.goto('/');
  await page.getByTestId('bundle-input').setInputFiles(bundles);
  const items = page.getByTestId('upload-item');
  await expect(items).toHaveCount(2);
  const labels: string[] = [];
  for (let i = 0; i < 2; i++) {
    await expect(items.nth(i)).toHaveClass(/upload-done/);
    labels.push((await items.nth(i).locator('.upload-status a').innerText()).trim());
  }
  const [base, other] = labels as [string, string];
  await page.getByRole('checkbox', { name: `Select ${base}`, exact: true }).check();
  await page.getByRole('checkbox', { name: `Select ${other}`, exact: true }).check();
  await page.getByRole('radio', { name: `Baseline: ${base}`, exact: true }).check();
  await page.getByRole('button', { name: /^Compare 2/ }).click();

  // A sweep notebook starts with the matrix and the chart (not the fio table, which would average the points).
  await expect(page).toHaveURL(/&cell=note:[^&]+&cell=sweep&cell=sweepline(&cell=fiolog)?&title=/);
  const matrix = page.getByTestId('sweep-matrix');
  await expect(matrix).toBeVisible();
  await expect(matrix.locator('tbody tr')).toHaveCount(2);
  await expect(matrix.locator('tbody tr').first()).toContainText(base);
  await expect(matrix.locator('tbody tr').first()).toContainText('baseline');
  await expect(matrix.locator('thead')).toContainText('randread');
  await expect(matrix.locator('thead')).toContainText('iodepth');
  // Relative: the other capture's cells are changes against the baseline, each with its test in the tooltip.
  const firstOther = matrix.locator('tbody tr').nth(1).locator('td.sweep-value').first();
  await expect(firstOther).toHaveText(/^[+−±-]\d+\.\d %[*?]?$|^×\d/);
  expect(await firstOther.getAttribute('title')).toMatch(/Welch's t-test: t = -?\d+\.\d\d, df = \d+\.\d, p/);
  await expect(page.locator('.sweep-cell .legend')).toContainText("Welch's t-test p < 0.05");
  // Absolute values, then another metric: the URL keeps both.
  await page.getByRole('button', { name: 'Absolute', exact: true }).click();
  await expect(firstOther.locator('.main')).toHaveText(/^\d[\d.,]*[kM]?$/); // IOPS: the unit is in the caption
  await page.locator('section.cell[data-kind="sweep"]').getByLabel('Metric').selectOption('clat_mean');
  await expect(page).toHaveURL(/cell=sweep:m=clat_mean;abs=1/);
  await expect(page.locator('.sweep-caption')).toContainText('clat mean');
  await expect(firstOther).toHaveText(/(µs|ms|ns)/);

  // The line chart: IOPS against iodepth, a line and a 95% band per capture.
  const chart = page.locator('section.cell[data-kind="sweepline"] svg[role="img"]');
  await expect(chart).toBeVisible();
  await expect(chart).toHaveAttribute('aria-label', /against iodepth/);
  expect(await chart.locator('g[data-series] path').count()).toBeGreaterThanOrEqual(2);
  expect(await chart.locator('g[data-series] circle').count()).toBeGreaterThanOrEqual(6);
  await expect(page.locator('section.cell[data-kind="sweepline"] .chart-legend')).toContainText(other);
  await page.locator('section.cell[data-kind="sweepline"]').getByLabel('rw').selectOption('*');
  await expect(page.locator('section.cell[data-kind="sweepline"] .chart-legend')).toContainText('rw=randwrite');

  // fio's logs over time, a line per capture.
  const logs = page.locator('section.cell[data-kind="fiolog"] svg[role="img"]');
  await expect(logs).toBeVisible();
  expect(await logs.locator('g[data-series] circle').count()).toBeGreaterThan(2);

  // The report for email: ASCII, 72 columns, the permalink of a saved notebook.
  await page.locator('section.cell[data-kind="sweep"]').getByRole('button', { name: 'Report for email…' }).click();
  const text = page.getByTestId('report-text');
  await expect(text).toContainText('relative to');
  const report = await text.innerText();
  expect(report).toContain(`clat mean relative to ${base}`);
  expect(report).toMatch(/\/n\/[0-9a-z]{10}\n/);
  for (const line of report.split('\n')) {
    expect(line.length).toBeLessThanOrEqual(72);
    expect(line).toMatch(/^[\x20-\x7e]*$/);
  }
  await page.getByRole('button', { name: 'Markdown' }).click();
  await expect(text).toContainText('#### clat mean');
  const permalink = /http\S+\/n\/[0-9a-z]{10}/.exec(report)![0];
  await page.keyboard.press('Escape');
  await page.goto(permalink);
  await expect(page.getByTestId('sweep-matrix')).toBeVisible();
});
