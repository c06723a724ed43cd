// Two kernels compared: bundles made here by the real collector with --kernel-config and
// --lab-facts (two .config files, a TCG guest against a KVM one, randwrite against randread),
// uploaded to a real `iolens serve`; the compare page shows the warnings, the kernel options and the
// workload differences first, and the whole .config diff on demand. IOLENS_SHOTS=dir saves screenshots.
import { expect, test, type Page } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = process.env.IOLENS_SHOTS;

const BASE = ['CONFIG_PREEMPT_VOLUNTARY=y', '# CONFIG_PREEMPT is not set', 'CONFIG_HZ=250', 'CONFIG_BLK_DEV_IO_TRACE=y', '# CONFIG_LOCK_STAT is not set', 'CONFIG_XFS_FS=m'];
const OTHER = ['# CONFIG_PREEMPT_VOLUNTARY is not set', 'CONFIG_PREEMPT=y', 'CONFIG_HZ=1000', 'CONFIG_BLK_DEV_IO_TRACE=y', 'CONFIG_LOCK_STAT=y', 'CONFIG_LOCKDEP=y', 'CONFIG_XFS_FS=y'];

function collect(tmp: string, label: string, config: string[], accel: string, rw: string): string {
  const cfg = path.join(tmp, `${label}.config`);
  const lab = path.join(tmp, `${label}.lab.json`);
  fs.writeFileSync(cfg, config.join('\n') + '\n');
  fs.writeFileSync(lab, JSON.stringify({ accelerator: accel, emulated: accel === 'tcg' }));
  const out = path.join(tmp, `${label}.iolens.tar.gz`);
  execFileSync(
    'python3',
    ['-m', 'iolens_collect', 'run', '--label', label, '--kernel-config', cfg, '--lab-facts', lab,
      '--fio-args', `--name=e2e --filename=${path.join(tmp, `${label}.dat`)} --size=4m --bs=4k --rw=${rw} --ioengine=psync --runtime=1 --time_based`,
      '-o', out],
    { cwd: repo, stdio: 'pipe', env: { ...process.env, PYTHONPATH: path.join(repo, 'collectors') } },
  );
  return out;
}

async function upload(page: Page, file: string): Promise<string> {
  const r = await page.request.post('/api/captures', { multipart: { file: { name: path.basename(file), mimeType: 'application/gzip', buffer: fs.readFileSync(file) } } });
  expect(r.ok(), await r.text()).toBeTruthy();
  return ((await r.json()) as { id: string }).id;
}

test('two kernels: incomparable set-ups, kernel options and workload first, the whole .config on demand', async ({ page }) => {
  test.setTimeout(120_000);
  const tmp = fs.mkdtempSync('/tmp/iolens-e2e-kernels-');
  const a = await upload(page, collect(tmp, 'kern-6.1-randwrite', BASE, 'tcg', 'randwrite'));
  const b = await upload(page, collect(tmp, 'kern-6.12-lockstat-randread', OTHER, 'kvm', 'randread'));
  await page.goto(`/compare?captures=${a},${b}`);
  const facts = page.getByRole('region', { name: 'What sets the captures apart' });
  const alert = facts.getByRole('alert');
  await expect(alert).toContainText('accelerator');
  await expect(alert).toContainText('tcg (lab guest, emulated CPU)');
  await expect(alert).toContainText('The workloads differ');
  await expect(alert).toContainText('LOCK_STAT');
  const table = facts.locator('table.kernel-facts');
  for (const [fact, x, y] of [['preempt model', 'voluntary', 'full'], ['CONFIG_HZ', '250', '1000'], ['CONFIG_LOCK_STAT', 'n', 'y'], ['fio.e2e.rw', 'randwrite', 'randread']]) {
    const row = table.locator('tr', { has: page.locator('th', { hasText: new RegExp(`^${fact}$`) }) });
    await expect(row.locator('td')).toHaveText([x!, y!]);
  }
  await expect(table.locator('th', { hasText: /^CONFIG_BLK_DEV_IO_TRACE$/ })).toHaveCount(0);
  await expect(page.getByText("The captures' host facts are identical")).toHaveCount(0);
  // The head's tables share one column grid (CompareFacts.tsx HeadCols): each capture's column starts
  // and ends at the same x in the captures table, the kernel facts and the differing host facts.
  const edges = async (t: string) =>
    page.locator(`${t} thead tr`).first().locator('th').evaluateAll((ths) => ths.map((th) => { const r = th.getBoundingClientRect(); return [Math.round(r.left), Math.round(r.right)]; }));
  const grid = await edges('table.captures-head');
  expect(grid).toHaveLength(3);
  expect(await edges('table.kernel-facts')).toEqual(grid);
  expect(await edges('.host-diff table')).toEqual(grid);
  // Numbers read beside their capture's name: a count's text starts at its column's left edge, as text
  // values do (right-aligned, a Repeats figure or CONFIG_HZ sat up to 28rem from the name above it).
  const textInset = (cell: ReturnType<Page['locator']>) =>
    cell.evaluate((td) => {
      const r = document.createRange();
      r.selectNodeContents(td);
      return Math.round(r.getBoundingClientRect().left - td.getBoundingClientRect().left);
    });
  const hz = table.locator('tr', { has: page.locator('th', { hasText: /^CONFIG_HZ$/ }) }).locator('td');
  const repeats = page.locator('table.captures-head tr', { has: page.locator('th', { hasText: /^Repeats$/ }) }).locator('td');
  for (const cell of [hz.nth(0), hz.nth(1), repeats.nth(0), repeats.nth(1)]) expect(await textInset(cell)).toBeLessThan(16);
  await page.getByRole('button', { name: /Show the whole \.config diff \(\d+ options\)/ }).click();
  const whole = facts.locator('.config-diff');
  await expect(whole.locator('tr', { has: page.locator('th', { hasText: /^CONFIG_XFS_FS$/ }) }).locator('td')).toHaveText(['m', 'y']);
  await expect(whole).toContainText('options differ (n: not set)');
  if (shots) await page.screenshot({ path: path.join(shots, 'compare-kernels.png'), fullPage: true });
});
