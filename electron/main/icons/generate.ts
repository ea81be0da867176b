/** `npm run icons`: draws every icon file again (a test checks the committed ones match). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appIcon, trayIcon, trayTemplateIcon } from './draw';
import { iconFiles } from './files';

export function drawIcon(file: ReturnType<typeof iconFiles>[number]): Buffer {
  if (file.level === null) return appIcon(file.size);
  return file.template ? trayTemplateIcon(file.level, file.size) : trayIcon(file.level, file.size);
}

if (process.argv[1]?.endsWith('generate.ts')) {
  const root = join(import.meta.dirname, '../../..');
  for (const file of iconFiles()) {
    mkdirSync(dirname(join(root, file.path)), { recursive: true });
    writeFileSync(join(root, file.path), drawIcon(file));
    console.log(file.path);
  }
}
