// The API report of every entry point of package.json's `exports` (api-extractor's .api.md), kept
// in api/. `node scripts/api-report.mjs` rewrites the reports after a deliberate change;
// `--check` (CI) fails when the built surface differs from the committed reports. Needs `dist/`.
import { mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const check = process.argv.includes('--check');
mkdirSync(join(root, 'api'), { recursive: true });

let changed = [];
for (const [entry, target] of Object.entries(pkg.exports)) {
  const name = entry === '.' ? 'index' : entry.slice(2).replaceAll('/', '-');
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: root,
      mainEntryPointFilePath: join(root, target.types),
      compiler: { tsconfigFilePath: join(root, 'tsconfig.build.json') },
      apiReport: { enabled: true, reportFileName: `${name}.api.md`, reportFolder: join(root, 'api'), reportTempFolder: join(root, 'dist-api-temp') },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        // The report is the point; documentation and naming advice is left to review.
        extractorMessageReporting: { default: { logLevel: 'none' } },
        tsdocMessageReporting: { default: { logLevel: 'none' } },
        compilerMessageReporting: { default: { logLevel: 'error' } },
      },
    },
    configObjectFullPath: join(root, 'api', `${name}.api-extractor.json`),
    packageJsonFullPath: join(root, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false, messageCallback: (m) => (m.handled = m.logLevel === 'none') });
  if (result.apiReportChanged) changed.push(`${entry} (api/${name}.api.md)`);
  if (!result.succeeded && !result.apiReportChanged) {
    console.error(`api-report: ${entry}: api-extractor failed (${result.errorCount} errors)`);
    process.exitCode = 1;
  }
}
if (check && changed.length > 0) {
  console.error(`api-report: the public surface changed without its report: ${changed.join(', ')}.\nIf the change is deliberate, run \`npm run build && npm run api-report\` and commit api/.`);
  process.exitCode = 1;
} else if (changed.length > 0) {
  console.error(`api-report: updated ${changed.join(', ')}`);
}
