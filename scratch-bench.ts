import { createBenchOrg } from './bench/setup';
import { rendererFigures } from './bench/rendererFigures';
import { Report } from './bench/report';
import { installCleanup, removeTempDir } from './bench/cleanup';
installCleanup();
const log = (l: string) => console.error(l);
const org = await createBenchOrg(Number(process.env.N ?? 10000), log);
await org.store.flush();
const report = new Report();
try {
  await rendererFigures(org, report, log);
} finally {
  await org.store.close();
  removeTempDir(org.root);
}
console.log(report.format());
