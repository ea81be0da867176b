/**
 * `node --import <this, compiled>`: installs the resolve hook that replaces `electron` (only it) with
 * the recording fake whose compiled file URL is in FAKE_ELECTRON_MODULE.
 */
import { register } from 'node:module';

const fake = process.env.FAKE_ELECTRON_MODULE;
if (!fake) throw new Error('FAKE_ELECTRON_MODULE is not set');
register('./resolveElectron.mjs', import.meta.url, { data: { fake } });
